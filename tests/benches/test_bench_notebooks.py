"""``labsupport bench notebooks``: its timing of a notebook and its checks of bad input
(running the pack is the bench's job; here one tiny notebook)."""
import nbformat
import pytest

from labsupport.benches import notebooks


def test_execute_times_each_code_cell(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("hi"),
                                         nbformat.v4.new_code_cell("import time; time.sleep(0.3)"),
                                         nbformat.v4.new_code_cell("x = 1")])
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    _, seconds, cells = notebooks.execute(path, tmp_path)
    assert len(cells) == 2 and cells[0] >= 0.3 and seconds >= cells[0] + cells[1]


@pytest.mark.parametrize("kw, words", [({"goal_cell_s": 0}, "goal_cell_s must be"),
                                       ({"goal_first_hour_s": -1.0}, "goal_first_hour_s must be"),
                                       ({"prefixes": ["99"]}, "--notebook")])
def test_bad_input_names_the_parameter(kw, words):
    with pytest.raises(ValueError, match=words):
        notebooks.run(**kw)


def test_cli_refuses_an_unknown_notebook(capsys):
    with pytest.raises(SystemExit):
        notebooks.main(["--notebook", "99"])
    assert "matches no solution notebook" in capsys.readouterr().err
