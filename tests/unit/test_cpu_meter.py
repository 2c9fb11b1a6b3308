"""The benchmarks' CPU meter: it tells a server's CPU time from the load generator's."""

import os
import signal
import subprocess
import sys
import time

from benchmarks._harness import CpuMeter

# Burns this much CPU time (not wall time, which a busy machine would stretch) and exits.
BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < {seconds}: pass\n"


def burn_here(seconds: float) -> None:
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def test_a_servers_child_processes_count_as_the_server() -> None:
    # the server's work is done by a process it started, as booking serve's workers are; the worker
    # stays (asleep) after its work, as a server's do through a run
    worker = BURN.format(seconds=0.3) + "time.sleep(60)\n"
    parent = f"import subprocess, sys\nsubprocess.run([sys.executable, '-c', {worker!r}])\n"
    server = subprocess.Popen([sys.executable, "-c", parent], start_new_session=True)
    try:
        meter = CpuMeter({"server": server.pid})
        before = meter.read("server")
        deadline = time.monotonic() + 30
        while meter.read("server")["server"] - before["server"] < 0.25 and time.monotonic() < deadline:
            time.sleep(0.05)
        during = meter.read("server")
        assert during["server"] - before["server"] >= 0.25
        assert during["load"] - before["load"] < 0.2  # this process only slept and read /proc
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def test_the_load_generators_time_is_its_own() -> None:
    idle = subprocess.Popen([sys.executable, "-c", "input()"], stdin=subprocess.PIPE)
    try:
        meter = CpuMeter({"server": idle.pid})
        before = meter.read("server")
        burn_here(0.3)
        subprocess.run([sys.executable, "-c", BURN.format(seconds=0.2)], check=True)  # as wrk runs
        after = meter.read("server")
        assert after["load"] - before["load"] >= 0.5
        assert after["server"] - before["server"] < 0.1
    finally:
        idle.kill()
        idle.wait()
