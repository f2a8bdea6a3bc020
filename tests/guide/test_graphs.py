"""Guide section "Obtaining graphs", and graph sizes when a loop runs over Python data."""

import numpy as np

import autograph as ag


@ag.function
def double(a):
    return a + a


def test_graph_nodes(capsys):
    graph = double.get_concrete_function(np.str_("a")).graph
    for node in graph.as_graph_def().node:
        print(f"{node.input} -> {node.name}")
    assert capsys.readouterr().out == "[] -> a\n['a', 'a'] -> add\n['add'] -> Identity\n"


def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    print(
        "{}({}) contains {} nodes in its graph".format(
            f.__name__, ", ".join(map(str, args)), len(g.as_graph_def().node)
        )
    )
    return len(g.as_graph_def().node)


@ag.function
def train(dataset):
    loss = ag.constant(0)
    for x, y in dataset:
        loss += np.abs(y - x)  # Some dummy computation.
    return loss


def test_python_loops_unroll_into_the_graph(capsys):
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    small = measure_graph_size(train, small_data)
    big = measure_graph_size(train, big_data)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("train([(1, 1), (1, 1), (1, 1)]) contains")
    assert out[1].startswith("train([(1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1), (1, 1)")
    assert big > small
    # Each unrolled iteration adds the same number of nodes.
    per_step = (big - small) / 7
    assert per_step == int(per_step) and per_step >= 1
    assert train(small_data) == 0


def test_tensor_data_keeps_one_copy_of_the_loop():
    small = measure_graph_size(train, np.ones((3, 2), np.int64))
    big = measure_graph_size(train, np.ones((10, 2), np.int64))
    assert small == big
    assert train(np.array([[1, 3], [2, 2]])) == 2
