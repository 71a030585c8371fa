def fix_inplace(lib, model, batches, optimizer):
    """Smooth out of place: softmax's output stays as autograd saved it."""
    model.train()
    out = []
    for x, y in batches:
        optimizer.zero_grad()
        p = lib.softmax(model(x), dim=1)
        value = -(p.mul(0.9).add(0.01).log().gather(1, y[:, None])).mean()
        value.backward()
        optimizer.step()
        out.append(value.item())
    return out
