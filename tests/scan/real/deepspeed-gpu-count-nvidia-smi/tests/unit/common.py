# Excerpt of DeepSpeed tests/unit/common.py (MIT, Copyright (c) Microsoft Corporation; see SOURCES.md)
import os
import time

import torch
import torch.distributed as dist
from torch.multiprocessing import Process

import deepspeed

import pytest

from pathlib import Path
# [rocdoc excerpt: lines 39-44 of the original]
    if cuda_visible is None:
        # CUDA_VISIBLE_DEVICES is not set, discover it from nvidia-smi instead
        import subprocess
        nvidia_smi = subprocess.check_output(['nvidia-smi', '--list-gpus'])
        num_gpus = len(nvidia_smi.decode('utf-8').strip().split('\n'))
        cuda_visible = ",".join(map(str, range(num_gpus)))
