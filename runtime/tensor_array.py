"""Not built yet: placeholder so the package imports while it is being built."""



def TensorArray(*args, **kwargs):
    raise NotImplementedError("TensorArray is not built yet")
