"""`labgrader`: argument errors are clear; the LMS file-name pattern finds students."""
import re

import pytest

from labgrader import ROOT, Course, main

# the knowledge check's assignment, found in solutions/ (notebooks get renumbered)
KC = next((p.parent.name for p in sorted(ROOT.glob("solutions/*/*.ipynb"))
           if '"grade_id": "kc' in p.read_text()), "08_knowledge_check")


def test_unknown_assignment_names_the_allowed_ones(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["release", "99_nope"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "99_nope" in err and KC in err


def test_collect_rejects_what_is_neither_folder_nor_zip(tmp_path, capsys):
    bogus = tmp_path / "grades.txt"
    bogus.write_text("not a zip")
    assert main(["collect", str(bogus)]) == 2
    assert "neither a folder nor a zip" in capsys.readouterr().err


@pytest.mark.parametrize("path, student", [
    ("/x/extracted/lms/jdoe_12345_67890_08_knowledge_check.ipynb", "jdoe"),
    ("/x/extracted/lms/jdoe_12345_67890_08_knowledge_check-1.ipynb", "jdoe"),
    ("/x/extracted/lms/alice/08_knowledge_check.ipynb", "alice"),
    ("/x/extracted/lms/alice/08_knowledge_check/08_knowledge_check.ipynb", "alice"),
    ("/x/extracted/lms/bob_42/08_knowledge_check.ipynb", "bob"),
    ("/x/extracted/lms/carol/00_welcome.ipynb", None),
    ("/x/extracted/lms/carol/08_knowledge_check.py", None),
])
def test_default_lms_pattern(path, student):
    path = path.replace("08_knowledge_check", KC)
    m = re.match(Course().default_regexp(KC), path)
    assert (m and m.group("student_id")) == student
    if m:
        assert m.group("file_id") == KC
