def fix_eval(lib, model, batches, optimizer, test_images):
    """Train, then switch to eval mode before the test images."""
    model.train()
    out = []
    for x, y in batches:
        optimizer.zero_grad()
        value = lib.nn.functional.cross_entropy(model(x), y)
        value.backward()
        optimizer.step()
        out.append(value.item())
    model.eval()
    with lib.no_grad():
        return out, model(test_images)
