# nbgrader and the JupyterLab formgrader read this file from the repo root; the course config lives in autograde/.
c = get_config()  # noqa: F821
load_subconfig("autograde/nbgrader_config.py")  # noqa: F821
