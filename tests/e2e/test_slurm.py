"""rocdoc as a Slurm health check (contrib/slurm/rocdoc-slurm-healthcheck) against a real Slurm.

Debian's munged, slurmctld and three slurmd (slurm-wlm 22.05), started by this test on 127.0.0.1
only, each with its own state, spool, log and pid files in a temporary directory, and stopped in
a finally block. Debian's slurm-wlm is built with --enable-multiple-slurmd (its plugins hold that
mode's code: auth_munge.so's "expected in multiple slurmd mode" message, cgroup_v2.so's per-node
"%s/%s/%s_%s.scope"), so the three nodes share NodeHostname=localhost and NodeAddr=127.0.0.1, each
with its own Port, and each slurmd is started with -N NAME (%n in the spool, pid and log paths). slurmd itself runs the wrapper as its HealthCheckProgram (every
HealthCheckInterval=2 seconds) and as its Prolog, through a two-line shim that records the
environment slurmd gave it and passes the configuration file (HealthCheckProgram takes no
arguments). The configuration points each node at its own copy of a fixture snapshot with
--root "$SNAPSHOTS/$NODE".

Asserts: node2 (mi300x-numa-balancing) is drained with exactly "rocdoc: " + the failing ids of
rocdoc's JSON report; a job still runs on node1 and node3; a node drained by someone else
(reason "maintenance") keeps that reason, healthy or not; node2 is resumed once its snapshot is
replaced by a healthy one; slurmd set SLURMD_NODENAME for both the health check and the Prolog;
rocdoc's exit 2 (here a bad --fail-on) changes nothing. The daemons also die with this test
(PR_SET_PDEATHSIG) when it is killed before its finally block runs.
"""
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import FIXTURES, SOURCE_DIR, Results  # noqa: E402

WRAPPER = os.path.join(SOURCE_DIR, "contrib", "slurm", "rocdoc-slurm-healthcheck")
HEALTHY = "full-stack-healthy"
UNHEALTHY = "mi300x-numa-balancing"
# Under ASan+UBSan (ROCDOC_SANITIZED, set by ctest in a sanitized build) every rocdoc run the
# health checks start is several times slower, and the suite runs on every core beside it: each
# wait, and the whole test, gets three times as long there.
SLOW = 3 if os.environ.get("ROCDOC_SANITIZED") else 1
DEADLINE = time.monotonic() + 110 * SLOW  # the whole test, daemons included: under 2 minutes
NEEDED = ["munged", "slurmctld", "slurmd", "scontrol", "sinfo", "srun"]


def die_with_parent():
    """In the child before exec: SIGKILL when this test dies, even if no finally block runs
    (ctest's timeout kills the test)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def free_ports(count):
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        sockets.append(s)
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def remaining(cap):
    return max(1.0, min(cap * SLOW, DEADLINE - time.monotonic()))


def wait_for(what, predicate, timeout=30):
    end = time.monotonic() + remaining(timeout)
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.3)
    raise TimeoutError(f"timed out waiting for {what}")


class Cluster:
    """munged, slurmctld and slurmd node1..3 in one temporary directory."""

    def __init__(self, rocdoc):
        self.dir = tempfile.mkdtemp(prefix="rocdoc-slurm-")
        os.chmod(self.dir, 0o700)  # munged refuses a socket directory others can write
        self.rocdoc = rocdoc
        self.processes = []
        self.conf = os.path.join(self.dir, "slurm.conf")
        self.snapshots = os.path.join(self.dir, "snapshots")
        self.env = dict(os.environ, SLURM_CONF=self.conf)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def start(self, name, argv):
        log = open(self.path(f"{name}.out"), "wb")
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   env=self.env, start_new_session=True, preexec_fn=die_with_parent)
        log.close()
        self.processes.append((name, process))
        return process

    def stop(self):
        for name, process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for name, process in reversed(self.processes):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            # Its session: slurmstepd and health checks it started, if any are left.
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)

    def logs(self):
        text = []
        for name in sorted(os.listdir(self.dir)):
            if name.endswith((".log", ".out")):
                with open(self.path(name), errors="replace") as f:
                    text.append(f"==== {name}\n" + f.read()[-3000:])
        return "\n".join(text)

    # ---- setup --------------------------------------------------------------------------

    def write_files(self):
        for node, fixture in [("node1", HEALTHY), ("node2", UNHEALTHY), ("node3", HEALTHY)]:
            shutil.copytree(os.path.join(FIXTURES, fixture), os.path.join(self.snapshots, node), symlinks=True)
        with open(self.path("healthcheck.conf"), "w") as f:
            f.write(f'ROCDOC={self.rocdoc}\n'
                    f'ROCDOC_ARGS="--root {self.snapshots}/$NODE"\n'
                    f'SLURM_CONF={self.conf}\n')
        for kind in ("healthcheck", "prolog"):
            shim = self.path(kind)
            with open(shim, "w") as f:
                f.write("#!/bin/sh\n"
                        f'env > "{self.dir}/env-{kind}-$SLURMD_NODENAME"\n'
                        f'echo run >> "{self.dir}/runs-{kind}-$SLURMD_NODENAME"\n'
                        f'exec "{WRAPPER}" --config "{self.path("healthcheck.conf")}"\n')
            os.chmod(shim, 0o755)
        ctld_port, *node_ports = free_ports(4)
        host = socket.gethostname().split(".")[0]
        nodes = "\n".join(
            f"NodeName=node{i} NodeHostname=localhost NodeAddr=127.0.0.1 Port={port} CPUs=1 RealMemory=100 State=UNKNOWN"
            for i, port in enumerate(node_ports, start=1))
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=rocdoctest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.path("munge.socket")}
StateSaveLocation={self.path("state")}
SlurmdSpoolDir={self.path("spool-%n")}
SlurmctldPidFile={self.path("slurmctld.pid")}
SlurmdPidFile={self.path("slurmd-%n.pid")}
SlurmctldLogFile={self.path("slurmctld.log")}
SlurmdLogFile={self.path("slurmd-%n.log")}
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
HealthCheckProgram={self.path("healthcheck")}
HealthCheckInterval=2
HealthCheckNodeState=ANY
Prolog={self.path("prolog")}
{nodes}
PartitionName=debug Nodes=node1,node2,node3 Default=YES MaxTime=5 State=UP
""")
        os.makedirs(self.path("state"))

    def start_daemons(self):
        key = self.path("munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        self.start("munged", ["munged", "--foreground", "--force", f"--key-file={key}",
                              f"--socket={self.path('munge.socket')}", f"--pid-file={self.path('munged.pid')}",
                              f"--log-file={self.path('munged.log')}", f"--seed-file={self.path('munged.seed')}"])
        wait_for("munged's socket", lambda: os.path.exists(self.path("munge.socket")), 15)
        self.start("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        wait_for("slurmctld", lambda: self.scontrol("ping").returncode == 0 and "UP" in self.scontrol("ping").stdout, 30)
        for i in (1, 2, 3):
            self.start(f"slurmd-node{i}", ["slurmd", "-D", "-N", f"node{i}", "-f", self.conf])

    # ---- asking Slurm -------------------------------------------------------------------

    def run(self, *argv, timeout=20):
        return subprocess.run(list(argv), capture_output=True, text=True, env=self.env,
                              timeout=remaining(timeout))

    def scontrol(self, *args):
        return self.run("scontrol", *args)

    def node(self, name):
        """State and reason of a node: ("IDLE+DRAIN", "rocdoc: numa.balancing")."""
        proc = self.run("sinfo", "--noheader", "--Node", f"--node={name}", "--format=%T|%E")
        state, _, reason = proc.stdout.strip().partition("|")
        proc = self.scontrol("show", "node", "--oneliner", name)
        fields = dict(field.split("=", 1) for field in proc.stdout.split() if "=" in field)
        return fields.get("State", state), ("" if reason == "none" else reason)

    def health_runs(self, node):
        try:
            with open(self.path(f"runs-healthcheck-{node}")) as f:
                return len(f.readlines())
        except FileNotFoundError:
            return 0

    def wait_health_runs(self, node, more):
        """Waits until slurmd ran node's health check `more` times from now."""
        start = self.health_runs(node)
        wait_for(f"{more} health checks on {node}", lambda: self.health_runs(node) >= start + more, 30)

    def replace_snapshot(self, node, fixture):
        new = os.path.join(self.snapshots, f".{node}-new")
        shutil.copytree(os.path.join(FIXTURES, fixture), new, symlinks=True)
        old = os.path.join(self.snapshots, f".{node}-old")
        os.rename(os.path.join(self.snapshots, node), old)
        os.rename(new, os.path.join(self.snapshots, node))
        shutil.rmtree(old)


def expected_reason(rocdoc):
    proc = subprocess.run([rocdoc, "check", "--json", "--root", os.path.join(FIXTURES, UNHEALTHY)],
                          capture_output=True, text=True, timeout=60)
    report = json.loads(proc.stdout)
    roots = [c["id"] for c in report["checks"] if c["status"] == "fail" and not c.get("caused_by")]
    return "rocdoc: " + ", ".join(roots)


def reason_from_json(report):
    """The line --format slurm must print, from the JSON report: the root cause of each failing
    check (following caused_by through findings), in report order, each once."""
    checks = {c["id"]: c for c in report["checks"]}
    finding = {i for i, c in checks.items() if c["status"] in ("fail", "warn")}

    def root(check_id, seen):
        for cause in checks[check_id].get("caused_by", []):
            if cause in finding and cause not in seen:
                return root(cause, seen | {cause})
        return check_id

    roots = {root(c["id"], {c["id"]}) for c in report["checks"] if c["status"] == "fail"}
    ids = [c["id"] for c in report["checks"] if c["id"] in roots]
    return "rocdoc: " + ", ".join(ids) if ids else "rocdoc: ok"


def check_every_fixture(rocdoc, results):
    """--format slurm names what the JSON report says, with the same exit code, on every fixture."""
    for name in sorted(os.listdir(FIXTURES)):
        root = os.path.join(FIXTURES, name)
        if not os.path.isdir(root):
            continue
        line = subprocess.run([rocdoc, "check", "--format", "slurm", "--root", root],
                              capture_output=True, text=True, timeout=60)
        as_json = subprocess.run([rocdoc, "check", "--json", "--root", root],
                                 capture_output=True, text=True, timeout=60)
        expected = reason_from_json(json.loads(as_json.stdout))
        results.check(line.returncode == as_json.returncode and line.stdout == expected + "\n",
                      f"{name}: --format slurm {line.stdout!r} (exit {line.returncode}), "
                      f"JSON says {expected!r} (exit {as_json.returncode})")


def main():
    rocdoc = os.path.abspath(sys.argv[1])
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        print(f"FAILED: not installed: {', '.join(missing)} (scripts/install-test-deps.sh: slurmctld slurmd "
              "slurm-client munge)")
        sys.exit(1)
    results = Results()
    check_every_fixture(rocdoc, results)
    reason = expected_reason(rocdoc)
    results.check(reason == "rocdoc: numa.balancing", f"the fixture's root causes: {reason!r}")
    cluster = Cluster(rocdoc)
    try:
        cluster.write_files()
        cluster.start_daemons()
        # node2 drained by the health check, with rocdoc's reason; node1 and node3 untouched.
        wait_for("node2 drained", lambda: "DRAIN" in cluster.node("node2")[0], 40)
        state, got = cluster.node("node2")
        results.check(got == reason, f"node2's reason is {reason!r}: {got!r} ({state})")
        wait_for("node1 and node3 idle",
                 lambda: all(cluster.node(n)[0] == "IDLE" for n in ("node1", "node3")), 30)
        for name in ("node1", "node3"):
            state, got = cluster.node(name)
            results.check(state == "IDLE" and got == "", f"{name} is idle with no reason: {state} {got!r}")

        # rocdoc cannot judge (exit 2: a bad --fail-on here): nothing changes, the wrapper says why.
        proc = cluster.run("sh", WRAPPER, "--config", cluster.path("healthcheck.conf"), "--node", "node1",
                           "--", "--fail-on", "bogus", timeout=30)
        state, got = cluster.node("node1")
        results.check(proc.returncode == 0 and "could not check node1 (exit 2" in proc.stderr
                      and state == "IDLE" and got == "",
                      f"rocdoc's exit 2 drains nothing: {proc.returncode} {proc.stderr!r} {state} {got!r}")
        proc = cluster.run("sh", WRAPPER, "--config", cluster.path("healthcheck.conf"), "--node", "node2",
                           "--dry-run", timeout=30)
        results.check(proc.returncode == 0 and proc.stdout == "",
                      f"node2 drained already for the same reason: no scontrol call: {proc.stdout!r}")

        # slurmd's environment for both ways of running the wrapper names the node.
        for kind, node in (("healthcheck", "node2"),):
            with open(cluster.path(f"env-{kind}-{node}")) as f:
                results.check(f"SLURMD_NODENAME={node}\n" in f.read(), f"{kind} gets SLURMD_NODENAME={node}")

        # A job still runs on the healthy nodes (and the Prolog, the wrapper too, lets it).
        for name in ("node1", "node3"):
            proc = cluster.run("srun", "--nodelist", name, "--nodes=1", "--time=1", "--immediate=20",
                               "printenv", "SLURMD_NODENAME", timeout=40)
            results.check(proc.returncode == 0 and proc.stdout.strip() == name,
                          f"a job runs on {name}: {proc.returncode} {proc.stdout!r} {proc.stderr!r}")
            env_file = cluster.path(f"env-prolog-{name}")
            results.check(os.path.exists(env_file) and f"SLURMD_NODENAME={name}\n" in open(env_file).read(),
                          f"the Prolog ran on {name} with SLURMD_NODENAME={name}")
            state, got = cluster.node(name)
            results.check("DRAIN" not in state and got == "", f"{name} not drained after its job: {state} {got!r}")
        proc = cluster.run("srun", "--nodelist", "node2", "--nodes=1", "--time=1", "--immediate=3", "true",
                           timeout=30)
        results.check(proc.returncode != 0, f"no job starts on drained node2: {proc.returncode}")

        # Drained by someone else: never resumed, never re-reasoned, healthy or not.
        proc = cluster.scontrol("update", "NodeName=node3", "State=DRAIN", "Reason=maintenance")
        results.check(proc.returncode == 0, f"scontrol drains node3: {proc.stderr}")
        cluster.wait_health_runs("node3", 2)
        state, got = cluster.node("node3")
        results.check("DRAIN" in state and got == "maintenance",
                      f"healthy node3 drained by someone else stays so: {state} {got!r}")
        cluster.replace_snapshot("node3", UNHEALTHY)
        cluster.wait_health_runs("node3", 2)
        state, got = cluster.node("node3")
        results.check("DRAIN" in state and got == "maintenance",
                      f"unhealthy node3 keeps someone else's reason: {state} {got!r}")

        # node2 healthy again: the wrapper resumes the drain it made.
        cluster.replace_snapshot("node2", HEALTHY)
        wait_for("node2 resumed", lambda: cluster.node("node2")[0] == "IDLE", 30)
        state, got = cluster.node("node2")
        results.check(state == "IDLE" and got == "", f"node2 resumed: {state} {got!r}")
        proc = cluster.run("srun", "--nodelist", "node2", "--nodes=1", "--time=1", "--immediate=20",
                           "printenv", "SLURMD_NODENAME", timeout=40)
        results.check(proc.returncode == 0 and proc.stdout.strip() == "node2",
                      f"a job runs on resumed node2: {proc.returncode} {proc.stdout!r} {proc.stderr!r}")
        state, got = cluster.node("node3")
        results.check("DRAIN" in state and got == "maintenance", f"node3 still someone else's: {state} {got!r}")
    except Exception as error:  # a timeout or a daemon that did not start: say where, with the logs
        results.check(False, f"{type(error).__name__}: {error}\n{cluster.logs()}")
    finally:
        cluster.stop()
        shutil.rmtree(cluster.dir, ignore_errors=True)
    results.check(not os.path.exists(cluster.dir), "the temporary directory is gone")
    results.finish()


if __name__ == "__main__":
    main()
