def fix_view(lib, model, batches, optimizer):
    """Transpose back, make it contiguous, then view."""
    model.train()
    out = []
    for cols, y in batches:
        optimizer.zero_grad()
        flat = cols.transpose(1, 2).contiguous().view(-1, 64)
        value = lib.nn.functional.cross_entropy(model(flat), y)
        value.backward()
        optimizer.step()
        out.append(value.item())
    return out
