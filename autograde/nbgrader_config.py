"""The lab's nbgrader course: solutions/ is the source, notebooks/ the release.

Loaded by the repo root's ``nbgrader_config.py`` (plain ``nbgrader …`` and the
JupyterLab formgrader) and by the trainers' package ``labgrader`` (``labgrader …``).
Trainer folders (submitted/, autograded/, feedback/, gradebook.db) live here and are
ignored by git.
"""
from pathlib import Path

from nbgrader.preprocessors import ClearHiddenTests
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor

from labgrader import (ShortTestErrors, autograde_preprocessors,
                       generate_assignment_preprocessors, sanitize_preprocessors)
from labgrader.feedback_view import (PAGE, TEMPLATE, GradesForStudents, NameGradedItems,
                                     VerdictsOnly, nbgrader_templates)

c = get_config()  # noqa: F821
ROOT = Path(__file__).resolve().parents[1]  # the repo root, wherever it is cloned

c.CourseDirectory.root = str(ROOT)
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
c.CourseDirectory.submitted_directory = "autograde/submitted"
c.CourseDirectory.autograded_directory = "autograde/autograded"
c.CourseDirectory.feedback_directory = "autograde/feedback"
c.CourseDirectory.db_url = f"sqlite:///{ROOT / 'autograde' / 'gradebook.db'}"

# The stub left in each answer cell names its exercise: NotImplementedError("ex02_1: …").
c.GenerateAssignment.preprocessors = generate_assignment_preprocessors()
# Feedback shows what a student wrote and which checks failed (the error and its message),
# never the hidden tests: neither in the test cells nor in a traceback's context lines, and
# no output of the grading kernel (it ran beside the judge's hidden cases): the verdicts only;
# a comment is a trainer's (the review's reasons stay in the gradebook: they may name a classmate).
# The page names each graded item by its exercise id and heading, and wraps every message
# (the course's template in autograde/templates/, which extends nbgrader's).
c.GenerateFeedback.preprocessors = [GradesForStudents, CSSHTMLHeaderPreprocessor, ClearHiddenTests,
                                    ShortTestErrors, NameGradedItems, VerdictsOnly]
# Scoped to the feedback converter's exporter (its parent): the formgrader's own pages keep
# nbgrader's templates.
c.GenerateFeedback.HTMLExporter.template_name = TEMPLATE
c.GenerateFeedback.HTMLExporter.template_file = PAGE
c.GenerateFeedback.HTMLExporter.extra_template_basedirs = [
    str(Path(__file__).resolve().parent / "templates"), nbgrader_templates()]
# Autograde: the kernel runs in the submission's sandbox (c.Sandbox: namespaces and a grading
# user as root, rlimits and a warning otherwise; limits in docs/trainers.md), in autograde mode
# (LAB_AUTOGRADE=1: short demos, no frontend waits), and survives a dead kernel; then every
# answer cell is graded again alone, in a box of its own, against the installed checks and
# audited; what needs a trainer is flagged; the autograded notebook runs no script in a browser.
c.Autograde.autograde_preprocessors = autograde_preprocessors()
# The notebook's schema checked once, after the last step, not after each of them (~80 ms
# a notebook; nbformat's check of what is written stays).
c.Autograde.NotebookExporter.optimistic_validation = True
# A copied answer or test cell loses its id without failing the whole submission; the
# trusted pass then fails that item closed (0, flagged: the answer cell appears twice).
c.Autograde.sanitize_preprocessors = sanitize_preprocessors()
# No solution cell needs more than 30 s; 60 s stops a student's infinite loop, then grading goes on.
c.Execute.timeout = 60
