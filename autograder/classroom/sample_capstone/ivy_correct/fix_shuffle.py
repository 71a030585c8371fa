def fix_shuffle(lib, dataset, seed, batch_size, epochs):
    """The loader gets its own generator, seeded."""
    g = lib.Generator()
    g.manual_seed(seed)
    loader = lib.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True,
                                       generator=g)
    return [[b.tolist() for (b,) in loader] for _ in range(epochs)]
