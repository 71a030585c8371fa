"""``reftensor.backends`` (``torch.backends``) as on a torch built for the CPU only (chapter
4): ``backends.mps.is_available()``, ``backends.cuda.is_built()`` and
``backends.cudnn.is_available()`` are False, ``cudnn.version()`` is None, and the cuDNN
switches programs set (``enabled``, ``benchmark``, ``deterministic``) are plain attributes
with torch's defaults (True, False, False) that change nothing here."""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
