def train_steps(lib, model, batches, optimizer):
    """Train on each batch once; return each step's loss."""
    model.train()
    seen = []
    for x, y in batches:
        optimizer.zero_grad()
        loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        seen.append(float(loss.item()))
    return seen
