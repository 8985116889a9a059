#!/usr/bin/python3
"""Validates a rules directory against docs/rules.schema.json.

Usage: scripts/validate-rules-schema.py RULES_DIR [--schema SCHEMA]

Each RULES_DIR/*.yaml is read with yaml.safe_load and validated against the schema's
$defs entry named after the file (torch.yaml -> #/$defs/torch). A file with no such entry
fails. Prints one line per problem (file:line: path: message), then "N passed, N failed".
Exit status: 0 when every file passed, 1 when one failed, 2 on a usage error.

The schema checks each file on its own; rocdoc's loader (`rocdoc rules lint RULES_DIR`)
also checks references between the files. Needs PyYAML and jsonschema (Debian 12:
python3-yaml, python3-jsonschema).
"""

import argparse
import copy
import json
import os
import sys

try:
    import jsonschema
    import yaml
except ImportError as error:  # pragma: no cover - a missing test dependency
    sys.stderr.write(f"validate-rules-schema: {error} (Debian: apt install python3-yaml python3-jsonschema)\n")
    sys.exit(2)

DEFAULT_SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs",
                              "rules.schema.json")


def line_of(node, path):
    """The 1-based line of the YAML node at `path` (keys and indices), or of its nearest parent."""
    line = node.start_mark.line + 1 if node is not None else 0
    for part in path:
        child = None
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if key.value == str(part):
                    child = value
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
        line = node.start_mark.line + 1
    return line


def validator_for(schema, name):
    """A validator for the $defs entry `name`; None when the schema has no such entry."""
    if name not in schema.get("$defs", {}):
        return None
    selected = copy.deepcopy(schema)
    selected.pop("oneOf", None)
    selected["$ref"] = "#/$defs/" + name
    cls = jsonschema.validators.validator_for(selected)
    cls.check_schema(selected)
    return cls(selected)


def check_file(path, schema):
    """Returns the problems of one rules file, each a line of text."""
    name = os.path.splitext(os.path.basename(path))[0]
    validator = validator_for(schema, name)
    if validator is None:
        return [f"{path}: no definition #/$defs/{name} in the schema (not a rocdoc rules file?)"]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        document = yaml.safe_load(text)
        tree = yaml.compose(text, Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError) as error:
        return [f"{path}: cannot read: {error}"]
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        return [f"{where}: invalid YAML: {getattr(error, 'problem', None) or error}"]
    problems = []
    for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        location = "/".join(str(part) for part in error.absolute_path) or "(top level)"
        problems.append(f"{path}:{line_of(tree, list(error.absolute_path))}: {location}: {message_of(error)}")
    return problems


def message_of(error):
    """jsonschema's message, without the whole offending entry that anyOf/oneOf messages quote."""
    if error.validator in ("anyOf", "oneOf"):
        alternatives = [sorted(option.get("required", [])) for option in error.validator_value]
        if all(alternatives):
            return "needs one of: " + " or ".join(", ".join(keys) for keys in alternatives)
        return f"matches none of the {error.validator} alternatives"
    return error.message


def main():
    parser = argparse.ArgumentParser(description="Validate rules/*.yaml against docs/rules.schema.json.")
    parser.add_argument("rules_dir", metavar="RULES_DIR")
    parser.add_argument("--schema", default=DEFAULT_SCHEMA, help="the JSON Schema (default: %(default)s)")
    args = parser.parse_args()

    try:
        with open(args.schema, encoding="utf-8") as f:
            schema = json.load(f)
        names = sorted(n for n in os.listdir(args.rules_dir) if n.endswith(".yaml"))
    except (OSError, ValueError) as error:
        sys.stderr.write(f"validate-rules-schema: {error}\n")
        return 2
    if not names:
        sys.stderr.write(f"validate-rules-schema: no *.yaml in {args.rules_dir}\n")
        return 2

    passed = failed = 0
    for name in names:
        problems = check_file(os.path.join(args.rules_dir, name), schema)
        if problems:
            failed += 1
            for problem in problems:
                print(problem)
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
