"""Not built yet: placeholder so the package imports while it is being built."""



def convert(*args, **kwargs):
    raise NotImplementedError("convert is not built yet")


def to_code(*args, **kwargs):
    raise NotImplementedError("to_code is not built yet")


def do_not_convert(*args, **kwargs):
    raise NotImplementedError("do_not_convert is not built yet")
