"""``reftensor.testing`` (``torch.testing``): what reftensor's own tests and chapter 9's demos
use; ``_internal.logging_tensor`` holds the logging mode."""
