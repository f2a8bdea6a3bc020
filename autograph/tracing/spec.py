"""Not built yet: placeholder so the package imports while it is being built."""



def TensorSpec(*args, **kwargs):
    raise NotImplementedError("TensorSpec is not built yet")
