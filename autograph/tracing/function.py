"""Not built yet: placeholder so the package imports while it is being built."""



def function(*args, **kwargs):
    raise NotImplementedError("function is not built yet")


def run_functions_eagerly(*args, **kwargs):
    raise NotImplementedError("run_functions_eagerly is not built yet")


def functions_run_eagerly(*args, **kwargs):
    raise NotImplementedError("functions_run_eagerly is not built yet")
