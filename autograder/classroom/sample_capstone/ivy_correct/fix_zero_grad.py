def fix_zero_grad(lib, model, batches, optimizer):
    """Two batches per step; the gradients emptied after each step."""
    model.train()
    out = []
    for k, (x, y) in enumerate(batches):
        piece = lib.nn.functional.cross_entropy(model(x), y) * 0.5
        piece.backward()
        out.append(piece.item())
        if k % 2 == 1:
            optimizer.step()
            optimizer.zero_grad()
    return out
