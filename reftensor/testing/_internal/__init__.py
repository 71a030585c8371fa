"""``reftensor.testing._internal`` (``torch.testing._internal``): helpers torch's own tests use,
under torch's names."""
