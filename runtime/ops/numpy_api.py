"""Not built yet: placeholder so the package imports while it is being built."""



def _unused(*args, **kwargs):
    raise NotImplementedError("_unused is not built yet")
SUPPORTED_NUMPY: frozenset = frozenset()
