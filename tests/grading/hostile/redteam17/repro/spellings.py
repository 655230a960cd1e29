"""redteam17: the instructors' BlockPool with one spelling changed by search and replace,
each scored (best_match, token order, flagged alone); the second part also runs the check.

    .venv/bin/python tests/grading/hostile/redteam17/repro/spellings.py
"""
import re, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import score as S
sol = S.solution("ex06_8")
ATTRS = ["block_size", "free_blocks", "refs", "tables", "lengths"]
pat = re.compile(r"self\.(" + "|".join(ATTRS) + r")\b")
V = {}
V["solution"] = sol
# named int slots
head = "BS, FREE, REFS, TABLES, LENGTHS = range(5)\n\n"
v = pat.sub(lambda m: f"self.s[{['BS','FREE','REFS','TABLES','LENGTHS'][ATTRS.index(m.group(1))]}]", sol)
v = v.replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = [None] * 5\n", 1)
v = v.replace("self.s[TABLES], self.s[LENGTHS] = {}, {}", "self.s[TABLES] = {}\n        self.s[LENGTHS] = {}")
V["named_int_slots"] = head + v
# named str keys in a tuple binding
head2 = "BS, FREE, REFS, TABLES, LENGTHS = 'block_size', 'free_blocks', 'refs', 'tables', 'lengths'\n\n"
v2 = v.replace("[None] * 5", "{}")
V["named_str_keys_tuple"] = head2 + v2
# class-level keys
v3 = pat.sub(lambda m: f"self.s[self.K{ATTRS.index(m.group(1))}]", sol)
v3 = v3.replace("    def __init__(self, num_blocks, block_size):\n", "    K0, K1, K2, K3, K4 = range(5)\n\n    def __init__(self, num_blocks, block_size):\n        self.s = [None] * 5\n", 1)
v3 = v3.replace("self.s[self.K3], self.s[self.K4] = {}, {}", "self.s[self.K3] = {}\n        self.s[self.K4] = {}")
V["class_int_slots"] = v3
# float slots
v4 = pat.sub(lambda m: f"self.s[{ATTRS.index(m.group(1))}.0]", sol)
v4 = v4.replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = {}\n", 1)
v4 = v4.replace("self.s[3.0], self.s[4.0] = {}, {}", "self.s[3.0] = {}\n        self.s[4.0] = {}")
V["float_slots"] = v4
# f-string keys
v5 = pat.sub(lambda m: f"self.s[f'{m.group(1)}']", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = {}\n", 1)
v5 = v5.replace("self.s[f'tables'], self.s[f'lengths'] = {}, {}", "self.s[f'tables'] = {}\n        self.s[f'lengths'] = {}")
V["fstring_keys"] = v5
# concatenated keys
v6 = pat.sub(lambda m: f"self.s['{m.group(1)[:2]}' + '{m.group(1)[2:]}']", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = {}\n", 1)
v6 = re.sub(r"self\.s\['ta' \+ 'bles'\], self\.s\['le' \+ 'ngths'\] = \{\}, \{\}", "self.s['ta' + 'bles'] = {}\n        self.s['le' + 'ngths'] = {}", v6)
V["concat_keys"] = v6
# bytes keys
v7 = pat.sub(lambda m: f"self.s[b'{m.group(1)}']", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = {}\n", 1)
v7 = v7.replace("self.s[b'tables'], self.s[b'lengths'] = {}, {}", "self.s[b'tables'] = {}\n        self.s[b'lengths'] = {}")
V["bytes_keys"] = v7
# getattr with default
v8 = re.sub(r"self\.(" + "|".join(ATTRS) + r")\b(?!\s*(=|,\s*self\.lengths\s*=))", lambda m: f"getattr(self, '{m.group(1)}', None)", sol)
V["getattr_default"] = v8
# vars(self).get
v9 = re.sub(r"self\.(" + "|".join(ATTRS) + r")\b(?!\s*(=|,\s*self\.lengths\s*=))", lambda m: f"vars(self).get('{m.group(1)}')", sol)
V["vars_get"] = v9
# __getattribute__
v10 = re.sub(r"self\.(" + "|".join(ATTRS) + r")\b(?!\s*(=|,\s*self\.lengths\s*=))", lambda m: f"self.__getattribute__('{m.group(1)}')", sol)
V["getattribute"] = v10
# holder with positional arg
v11 = pat.sub(lambda m: f"self.t.{m.group(1)}", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.t = _State(num_blocks)\n", 1)
V["holder_positional"] = "class _State:\n    def __init__(self, n):\n        pass\n\n\n" + v11
# holder via property
v12 = pat.sub(lambda m: f"self.t.{m.group(1)}", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    @property\n    def t(self):\n        return self._t\n\n    def __init__(self, num_blocks, block_size):\n        self._t = _State()\n", 1)
V["holder_property"] = "class _State:\n    pass\n\n\n" + v12
# holder via local alias in each method
v13 = re.sub(r"(    def \w+\(self[^)]*\):\n)", r"\1        t = self.t\n", sol)
v13 = pat.sub(lambda m: f"t.{m.group(1)}", v13)
v13 = v13.replace("    def __init__(self, num_blocks, block_size):\n        t = self.t\n", "    def __init__(self, num_blocks, block_size):\n        self.t = t = _State()\n", 1)
V["holder_local_alias"] = "class _State:\n    pass\n\n\n" + v13
# module-level holder keyed by self
v14 = pat.sub(lambda m: f"_S[self].{m.group(1)}", sol).replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        _S[self] = _State(self)\n", 1)
V["holder_dict_positional"] = "class _State:\n    def __init__(self, owner):\n        pass\n\n\n_S = {}\n\n\n" + v14
# itemgetter slots
v15 = pat.sub(lambda m: f"itemgetter({ATTRS.index(m.group(1))})(self.s)", sol)
v15 = v15.replace("    def __init__(self, num_blocks, block_size):\n", "    def __init__(self, num_blocks, block_size):\n        self.s = [None] * 5\n", 1)
V["itemgetter_slots"] = "from operator import itemgetter\n\n\n" + v15
for k, v in V.items():
    try:
        compile(v, k, "exec")
    except SyntaxError as e:
        print(k, "SYNTAX", e); continue
    print(S.line(k, "ex06_8", v))
print("---- more")
W = {}
init_old = "        self.block_size = block_size\n        self.free_blocks = list(range(num_blocks))[::-1]   # pop() takes the lowest\n        self.refs = {}                                     # block -> sequences holding it\n        self.tables, self.lengths = {}, {}\n"
assert init_old in sol
body = sol.replace(init_old, "@@INIT@@")
g = pat.sub(lambda m: f"ST.{m.group(1)}", body).replace("@@INIT@@", "        ST.block_size = block_size\n        ST.free_blocks = list(range(num_blocks))[::-1]\n        ST.refs = {}\n        ST.tables, ST.lengths = {}, {}\n")
W["global_state"] = "from types import SimpleNamespace\n\nST = SimpleNamespace()\n\n\n" + g
it = pat.sub(lambda m: f"itemgetter({ATTRS.index(m.group(1))})(self.s)", body).replace("@@INIT@@", "        self.s = [block_size, list(range(num_blocks))[::-1], {}, {}, {}]\n")
W["itemgetter_slots"] = "from operator import itemgetter\n\n\n" + it
ns = pat.sub(lambda m: f"self.s[{['BS','FREE','REFS','TABLES','LENGTHS'][ATTRS.index(m.group(1))]}]", body).replace("@@INIT@@", "        self.s = [block_size, list(range(num_blocks))[::-1], {}, {}, {}]\n")
W["named_int_slots_display"] = "BS, FREE, REFS, TABLES, LENGTHS = range(5)\n\n\n" + ns
ns2 = "BS = 0\nFREE = 1\nREFS = 2\nTABLES = 3\nLENGTHS = 4\n\n\n" + pat.sub(lambda m: f"self.s[{['BS','FREE','REFS','TABLES','LENGTHS'][ATTRS.index(m.group(1))]}]", body).replace("@@INIT@@", "        self.s = [block_size, list(range(num_blocks))[::-1], {}, {}, {}]\n")
W["named_int_slots_lines"] = ns2
gd = re.sub(r"self\.(" + "|".join(ATTRS) + r")\b", lambda m: f"getattr(self, '{m.group(1)}', None)", body).replace("@@INIT@@", init_old)
W["getattr_default_reads"] = gd
hp = pat.sub(lambda m: f"_S[self].{m.group(1)}", body).replace("@@INIT@@", "        _S[self] = _State(self)\n" + pat.sub(lambda m: f"_S[self].{m.group(1)}", init_old))
W["holder_by_self_positional"] = "class _State:\n    def __init__(self, owner):\n        self.owner = owner\n\n\n_S = {}\n\n\n" + hp
hp2 = pat.sub(lambda m: f"self.t.{m.group(1)}", body).replace("@@INIT@@", "        self.t = _State(self)\n" + pat.sub(lambda m: f"self.t.{m.group(1)}", init_old))
W["holder_positional_self"] = "class _State:\n    def __init__(self, owner):\n        self.owner = owner\n\n\n" + hp2
hp3 = pat.sub(lambda m: f"self.t.{m.group(1)}", body).replace("@@INIT@@", "        self.t = copy(_BLANK)\n" + pat.sub(lambda m: f"self.t.{m.group(1)}", init_old))
W["holder_copy_blank"] = "from copy import copy\nfrom types import SimpleNamespace\n\n_BLANK = SimpleNamespace()\n\n\n" + hp3
hp4 = pat.sub(lambda m: f"self.t.{m.group(1)}", body).replace("@@INIT@@", "        self.t = SimpleNamespace(**dict(block_size=block_size))\n" + pat.sub(lambda m: f"self.t.{m.group(1)}", init_old).replace("        self.t.block_size = block_size\n", ""))
W["holder_kwargs_dict"] = "from types import SimpleNamespace\n\n\n" + hp4
for k, v in W.items():
    compile(v, k, "exec")
    ns_ = {}
    exec(compile(v, k, "exec"), ns_)
    from labsupport.exercises.registry import check_of
    ok = "pass"
    try:
        check_of("ex06_8")(ns_["BlockPool"]); check_of("ex06_8")(ns_["BlockPool"], hidden=True)
    except BaseException as e:
        ok = f"FAIL {str(e)[:60]}"
    print(S.line(k, "ex06_8", v), ok)
    pass
