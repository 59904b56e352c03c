"""The graphs rrg runs, made once per machine in the cache dir: the model's weights folded
(onnxruntime's optimiser) and their int8 copy; folders made whole, then renamed in, and
those of killed processes swept away."""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from pathlib import Path

#: The quantised graph's file name, beside the float graph in rrg's optimised copy.
QUANTIZED_GRAPH = "model-q8.onnx"


def quantize_graph(source: Path, target: Path) -> None:
    """Write ``source`` with int8 weights, one scale per output channel, and activations
    quantised at run time (onnxruntime's dynamic quantisation). One scale per channel: with
    one per tensor, a sentence vector lay at cosine .936 on average from the float graph's
    (scifact, 300 abstracts); per channel at .995. Nothing is written where it fails."""
    import logging

    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:  # onnx missing: the float graph serves
        return
    logging.disable(logging.WARNING)  # its advice to pre-process, printed on stderr
    try:
        partial = target.with_name(target.name + ".part")
        quantize_dynamic(source, partial, weight_type=QuantType.QInt8, per_channel=True)
        os.rename(partial, target)
    except Exception:  # noqa: BLE001 - a graph it cannot quantise runs as floats
        return
    finally:
        logging.disable(logging.NOTSET)


#: A staging or discarded folder untouched this long was left by a killed process (making
#: the graph takes seconds), and goes: each holds a copy of the weights (90 MB by default).
LEFTOVER_S = 3600


def sweep_leftovers(models: Path) -> None:
    """Remove the staging and discarded folders of processes that did not finish."""
    now = time.time()
    for folder in models.glob(".*-*"):
        if folder.name.startswith((".optimising-", ".discarded-")):
            with contextlib.suppress(OSError):
                if now - folder.stat().st_mtime > LEFTOVER_S:
                    shutil.rmtree(folder, ignore_errors=True)


def discard(folder: Path) -> None:
    """Remove a folder of the cache as one step: renamed aside first, so that a process
    opening it sees it whole or not at all (a process that renamed a fresh copy into its
    place in between loses only the time to make it again)."""
    aside = folder.with_name(f".discarded-{os.getpid()}-{threading.get_ident()}-{folder.name}")
    try:
        os.rename(folder, aside)
    except OSError:
        return  # gone already: another process discarded it
    shutil.rmtree(aside, ignore_errors=True)
