# the same through IPython's own displayhook (flagged by the audit; the score must not move either way)
ip = get_ipython()
ip.events.register("pre_run_cell", lambda info: ip.displayhook("all checks passed"))
kc08_01 = "no idea"
