"""Not built yet: placeholder so the package imports while it is being built."""



def range_(*args, **kwargs):
    raise NotImplementedError("range_ is not built yet")
