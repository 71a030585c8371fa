"""``reftensor.utils.data`` (``torch.utils.data``), chapter 7: datasets, samplers, collation
and the DataLoader, batch for batch as torch's for the same seed.

One concept per module: ``dataset.py`` (the dataset classes), ``split.py``
(``random_split``), ``sampler.py`` (the samplers), ``collate.py`` (``default_collate``,
``default_convert``), ``fetch.py`` (index -> batch), ``loader_iter.py`` (an epoch in the
main process, and the base seed), ``worker_info.py`` (``get_worker_info``), ``worker.py``
(a worker process: seeding, its loop), ``multiprocess_iter.py`` (an epoch with workers: queues and
in-order reassembly), ``signal_handling.py`` (a worker's death noticed), ``dataloader.py``
(the options).
"""

from .collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .split import random_split
from .worker_info import WorkerInfo, get_worker_info

__all__ = [
    "BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
    "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
    "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo",
    "default_collate", "default_convert", "get_worker_info", "random_split",
]
