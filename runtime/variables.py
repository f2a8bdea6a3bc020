"""Not built yet: placeholder so the package imports while it is being built."""



def Variable(*args, **kwargs):
    raise NotImplementedError("Variable is not built yet")
