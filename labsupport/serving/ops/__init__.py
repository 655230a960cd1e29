"""Running services: ``labsupport serve`` / ``load`` / ``export``, background starts
(``launcher``), the demo load that runs until stopped (``steady``), child processes
(``procs``), replicas behind a router."""
