"""Writes tests/models/device_planned/device_planned.pte.

It takes the exported `add` fixture and moves its planned buffer (buffer 1) to
cuda:0 through `ExecutionPlan.non_const_buffer_device`, the way upstream's
device-aware memory planning marks it. The file is written by executorch's own
serializer, so the runtime can be tested for device-planned memory without a
GPU toolchain at export time.

    ~/venv-export/bin/python tests/models/make_device_fixture.py
"""
import os

from executorch.exir._serialize._program import deserialize_pte_binary, serialize_pte_binary
from executorch.exir.schema import DeviceType, NonConstBufferDevice

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "add", "add.pte"), "rb") as f:
    loaded = deserialize_pte_binary(f.read())
# Newer executorch returns a PTEFile (program plus segment data).
program = getattr(loaded, "program", loaded)
plan = program.execution_plan[0]
plan.non_const_buffer_device = [NonConstBufferDevice(buffer_idx=1, device_type=DeviceType.CUDA, device_index=0)]
out_dir = os.path.join(here, "device_planned")
os.makedirs(out_dir, exist_ok=True)
with open(os.path.join(out_dir, "device_planned.pte"), "wb") as f:
    f.write(bytes(serialize_pte_binary(loaded)))
print("wrote", os.path.join(out_dir, "device_planned.pte"))
