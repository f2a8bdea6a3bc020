"""Not built yet: placeholder so the package imports while it is being built."""



def main(*args, **kwargs):
    raise NotImplementedError("main is not built yet")
