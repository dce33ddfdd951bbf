"""The layout gate: the MLIR/LLVM ABI the plugin and _C/_opt were compiled
against, checked against the target libtriton.so.

    python layout_gate.py --libtriton LIB [--cache DIR] [--stamp FILE] INPUT...

INPUTs are objects or shared objects built from the same sources and headers
(header-delta layer included) as the shipped binaries; those with types in
their DWARF must be compiled with -O0 -g -fstandalone-debug. Three checks:
  layouts  every mlir::/llvm:: class, struct, union and enum the INPUTs' code
           uses (the type of a parameter, `this` included, or a variable of a
           function they define, and those types' bases), against libtriton's
           DWARF: size, data member offsets (and bit sizes), base offsets,
           vtable slots (slot, name, linkage name), the return type of each
           method of the same linkage name (a mangled name does not encode it)
           and enumerator values. Types libtriton's DWARF does not describe
           are counted as skipped; types that differ but no code uses, listed.
  vtables  each used dynamic class's primary vtable size against libtriton's
           exported vtable (libtriton's DWARF lacks most dynamic classes).
  symbols  every mlir::/llvm:: symbol the INPUTs leave undefined (and do not
           define among themselves) must be exported by libtriton.
  mirrors  each of triton's own C++ types the code mirrors under another
           name (MIRRORS: the builder triton's Python `ir.builder` holds, the
           plugin API's structs) against libtriton's DWARF of the original,
           member names included; one the INPUTs define but libtriton does not
           describe fails too.
Any mismatch: one line per type or symbol naming it, then exit 1.
libtriton's facts are cached in --cache, keyed by its path, size and mtime.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

DUMP = os.environ.get("TLX_LLVM_DWARFDUMP") or "llvm-dwarfdump"
TYPE_TAGS = {"DW_TAG_class_type", "DW_TAG_structure_type", "DW_TAG_union_type",
             "DW_TAG_enumeration_type"}
SCOPE_TAGS = TYPE_TAGS | {"DW_TAG_namespace"}
CHILD_TAGS = {"DW_TAG_member", "DW_TAG_inheritance", "DW_TAG_subprogram", "DW_TAG_enumerator"}
PREFIXES = ("mlir::", "llvm::")
# Our mirror of a triton type -> triton's name for it (cpp/lib/TritonByName).
MIRRORS = {
    "tlx_alias::mirror::TritonOpBuilder": "TritonOpBuilder",
    "tlx_alias::mirror::PluginInfo": "mlir::triton::plugin::PluginInfo",
    "tlx_alias::mirror::PassInfo": "mlir::triton::plugin::PassInfo",
    "tlx_alias::mirror::DialectInfo": "mlir::triton::plugin::DialectInfo",
    "tlx_alias::mirror::OpInfo": "mlir::triton::plugin::OpInfo",
}
MIRRORED = frozenset(MIRRORS) | frozenset(MIRRORS.values())
CACHE_FORMAT = 2  # 2: the mirrored types outside mlir::/llvm:: too
_TYPE_REF = re.compile(r'\(0x[0-9a-f]+ "(.*)"\)$')


def _value(attr, raw):
    raw = raw.strip()
    if attr == "DW_AT_type":
        match = _TYPE_REF.match(raw)
        return match.group(1) if match else raw
    if raw.startswith('("') and raw.endswith('")'):
        return raw[2:-2]
    if raw.startswith("(") and raw.endswith(")"):
        return raw[1:-1]
    return raw


class _Die:
    __slots__ = ("depth", "tag", "attrs", "kids")

    def __init__(self, depth, tag):
        self.depth, self.tag, self.attrs, self.kids = depth, tag, {}, []


CODE_TAGS = {"DW_TAG_formal_parameter", "DW_TAG_variable", "DW_TAG_lexical_block"}


def parse(lines, types, uses=None):
    """Fills `types` (qualified name -> record) from llvm-dwarfdump's text:
    the first definition of each mlir::/llvm:: type wins (ODR: all alike).
    With `uses`, adds to it the types of the parameters (`this` included)
    and variables of every function the text defines: the types code uses."""
    stack = []
    skip_below = None  # depth of a subtree of no interest
    for line in lines:
        if line[:2] == "0x":
            rest = line[line.index(":") + 1:]
            tag = rest.lstrip(" ")
            depth = (len(rest) - len(tag) - 1) // 2
            if skip_below is not None:
                if depth > skip_below:
                    continue
                skip_below = None
            while stack and stack[-1].depth >= depth:
                _close(stack, types, uses)
            tag = tag.rstrip("\n")
            if tag == "NULL":
                continue
            if stack and not _wanted(stack, tag, uses is not None):
                skip_below = depth  # e.g. a declared method's parameters
                continue
            stack.append(_Die(depth, tag))
        elif stack and skip_below is None:
            text = line.lstrip()
            if text[:6] == "DW_AT_":
                attr, _, raw = text.partition("\t")
                stack[-1].attrs[attr] = raw
    while stack:
        _close(stack, types, uses)
    return types


def _wanted(stack, tag, code):
    parent = stack[-1]
    if parent.tag in TYPE_TAGS:
        return tag in CHILD_TAGS or tag in TYPE_TAGS
    if parent.tag in ("DW_TAG_subprogram", "DW_TAG_lexical_block"):
        # A function's body, not a method declared in a class.
        return code and tag in CODE_TAGS and not (len(stack) > 1 and stack[-2].tag in TYPE_TAGS)
    return parent.tag != "DW_TAG_subroutine_type"  # a function pointer's parameters


def _bare(type_name):
    """The type a parameter or variable of this type names: no cv, *, &."""
    name = type_name
    while True:
        stripped = re.sub(r"^(const|volatile) |( const| volatile|\s*[*&]+)$", "", name)
        if stripped == name:
            return name
        name = stripped


def _qualname(stack):
    parts = [die.attrs.get("DW_AT_name", '("(anonymous)")') for die in stack if die.tag in SCOPE_TAGS]
    return "::".join(_value("DW_AT_name", p) for p in parts)


def _close(stack, types, uses):
    die = stack[-1]
    in_code = len(stack) > 1 and stack[-2].tag in ("DW_TAG_subprogram", "DW_TAG_lexical_block")
    if uses is not None and in_code and die.tag in ("DW_TAG_formal_parameter", "DW_TAG_variable"):
        if "DW_AT_type" in die.attrs:
            uses.add(_bare(_value("DW_AT_type", die.attrs["DW_AT_type"])))
    parent = stack[-2] if len(stack) > 1 else None
    if die.tag in TYPE_TAGS and "DW_AT_name" in die.attrs and "DW_AT_declaration" not in die.attrs:
        name = _qualname(stack)
        if (name.startswith(PREFIXES) or name in MIRRORED) and name not in types:
            types[name] = _record(die)
    if parent is not None and parent.tag in TYPE_TAGS:
        parent.kids.append(die)
    stack.pop()


def _record(die):
    a = {k: _value(k, v) for k, v in die.attrs.items()}
    rec = {"size": a.get("DW_AT_byte_size", "?"), "members": [], "bases": [], "vslots": {},
           "returns": {}, "enumerators": {}}
    for kid in die.kids:
        k = {key: _value(key, v) for key, v in kid.attrs.items()}
        if kid.tag == "DW_TAG_member" and "DW_AT_declaration" not in k:
            offset = k.get("DW_AT_data_member_location") or k.get("DW_AT_data_bit_offset", "")
            rec["members"].append([k.get("DW_AT_name", ""), offset, k.get("DW_AT_bit_size", "")])
        elif kid.tag == "DW_TAG_inheritance":
            rec["bases"].append([k.get("DW_AT_type", ""), k.get("DW_AT_data_member_location", "")])
        elif kid.tag == "DW_TAG_subprogram" and "DW_AT_linkage_name" in k:
            link = k["DW_AT_linkage_name"]
            rec["returns"][link] = k.get("DW_AT_type", "void")
            slot = k.get("DW_AT_vtable_elem_location")
            if slot:
                rec["vslots"][slot.split()[-1]] = [k.get("DW_AT_name", ""), link]
        elif kid.tag == "DW_TAG_enumerator":
            rec["enumerators"][k.get("DW_AT_name", "")] = k.get("DW_AT_const_value", "")
    return rec


def dwarf_types(paths, uses=None):
    types = {}
    for path in paths:
        proc = subprocess.Popen([DUMP, "--debug-info", path], stdout=subprocess.PIPE, text=True,
                                errors="replace", bufsize=1 << 20)
        parse(proc.stdout, types, uses)
        if proc.wait() != 0:
            raise SystemExit(f"layout gate: {DUMP} failed on {path}")
    return types


def _num(text):
    return int(text, 0) if text[:1].isdigit() else text


def _diffs(ours, theirs):
    """What differs between two records of one type, each as a short phrase."""
    out = []
    if ours["size"] != theirs["size"]:
        out.append(f"size {_num(ours['size'])} vs {_num(theirs['size'])}")
    # Members with their names: in an interface's Concept (a table of function
    # pointers) a name at another offset is a different function.
    if ours["members"] != theirs["members"]:
        out.append("members " + _list_diff(ours["members"], theirs["members"]))
    # Bases by offset only: newer LLVMs rename internal bases (PointerUnion's)
    # without a layout change; a base whose layout changed differs itself.
    bases = [[["base", o] for _, o in rec["bases"]] for rec in (ours, theirs)]
    if bases[0] != bases[1]:
        out.append("bases " + _list_diff(*bases))
    slots = sorted(set(ours["vslots"]) | set(theirs["vslots"]), key=lambda s: int(s, 0))
    for slot in slots:
        mine, other = ours["vslots"].get(slot), theirs["vslots"].get(slot)
        if mine != other:
            out.append(f"vtable slot {int(slot, 0)} {_slot(mine)} vs {_slot(other)}")
            break
    if theirs["vslots"] and len(ours["vslots"]) != len(theirs["vslots"]):
        out.append(f"{len(ours['vslots'])} vs {len(theirs['vslots'])} virtual methods")
    for link, ret in sorted(ours["returns"].items()):
        if link in theirs["returns"] and _key(theirs["returns"][link]) != _key(ret):
            out.append(f"{link} returns {ret} vs {theirs['returns'][link]}")
    for name, value in sorted(ours["enumerators"].items()):
        if name in theirs["enumerators"] and theirs["enumerators"][name] != value:
            out.append(f"enumerator {name} = {value} vs {theirs['enumerators'][name]}")
    return out


def unqualified(name):
    """`name` with every scope qualifier dropped (`mlir::detail::X<mlir::Y>::Z`
    -> `Z`, `llvm::ArrayRef<mlir::Type>` -> `ArrayRef<Type>`): clang versions
    spell the scopes of template arguments differently."""
    out = []
    i = 0
    while i < len(name):
        if name.startswith("::", i):
            _drop_scope(out)
            i += 2
            continue
        out.append(name[i])
        i += 1
    return "".join(out)


def _key(name):
    """What two spellings of one type have in common (clang 21 leaves out
    default template arguments of void that clang 19 spells out)."""
    return unqualified(name).replace(" ", "").replace(",void>", ">")


def _drop_scope(out):
    depth = 0
    while out:
        c = out[-1]
        if c == ">":
            depth += 1
        elif c == "<" and depth:
            depth -= 1
        elif depth == 0 and not (c.isalnum() or c == "_"):
            return
        out.pop()


def _slot(entry):
    return f"{entry[0]} ({entry[1]})" if entry else "(none)"


def _list_diff(mine, other):
    """The first differing entry of two [name, offset, ...] lists."""
    for i in range(max(len(mine), len(other))):
        a = mine[i] if i < len(mine) else None
        b = other[i] if i < len(other) else None
        if a != b:
            return f"#{i} {_entry(a)} vs {_entry(b)}"
    return "differ"


def _entry(entry):
    if entry is None:
        return "(none)"
    name, offset = entry[0] or "(anonymous)", entry[1]
    bits = f":{entry[2]} bits" if len(entry) > 2 and entry[2] else ""
    return f"{name} @{offset}{bits}"


def compare(ours, theirs, used):
    """One line per used type that differs; the counts compared and skipped;
    and the types that differ but that the inputs' code does not use."""
    lines, compared, skipped, unused = [], 0, 0, []
    for name in sorted(ours):
        if name in MIRRORS:
            continue  # compare_mirrors'
        if name not in theirs:
            skipped += 1
            continue
        compared += 1
        diffs = _diffs(ours[name], theirs[name])
        if diffs and (name not in used or _unbuilt_concept(name, ours)):
            unused.append(name)
        elif diffs:
            lines.append(f"layout gate: {name}: " + "; ".join(diffs))
    return lines, compared, skipped, unused


def compare_mirrors(ours, theirs):
    """One line per mirror the inputs define that differs from triton's type
    or that libtriton does not describe; and how many were compared."""
    lines, compared = [], 0
    for mine, original in sorted(MIRRORS.items()):
        if mine not in ours:
            continue
        compared += 1
        if original not in theirs:
            lines.append(f"layout gate: {mine} mirrors {original}, which libtriton's DWARF does not describe")
            continue
        diffs = _diffs(ours[mine], theirs[original])
        if diffs:
            lines.append(f"layout gate: {mine} mirrors {original}: " + "; ".join(diffs))
    return lines, compared


def used_types(ours, uses):
    """The types a function of the inputs has a parameter (`this` included)
    or variable of (pointers and references too), and their bases: a
    layout difference in a type only named in declarations is harmless.
    A type merely embedded in a used one shows up as that one's difference."""
    by_key = {}
    for name in ours:
        by_key.setdefault(_key(name), name)
    todo = [by_key[k] for k in {_key(u) for u in uses} if k in by_key]
    used = set()
    while todo:
        name = todo.pop()
        if name in used:
            continue
        used.add(name)
        todo.extend(by_key[_key(b)] for b, _ in ours[name]["bases"] if _key(b) in by_key)
    return used


def _unbuilt_concept(name, ours):
    """An interface's Concept (its table of function pointers) that no Model
    in the inputs fills: the inputs call the interface's methods through
    libtriton's out-of-line wrappers (ODS emits them into the .cpp.inc), so
    only libtriton's own layout of the table is ever used."""
    if not name.endswith("InterfaceTraits::Concept"):
        return False
    scope = name[:-len("Concept")]
    models = tuple(scope + kind for kind in ("Model<", "FallbackModel<", "ExternalModel<"))
    return not any(other.startswith(models) for other in ours)


def _nm(args):
    proc = subprocess.run(["nm", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"layout gate: nm {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.splitlines()


def libtriton_symbols(lib):
    """libtriton's exported symbols, and its exported vtables' sizes by class."""
    exports = {line.split()[-1].split("@")[0] for line in _nm(["-D", "--defined-only", lib])
               if len(line.split()) >= 3}
    vtables = {}
    for line in _nm(["-D", "-S", "-C", "--defined-only", lib]):
        addr, size, kind, name = (line.split(None, 3) + ["", "", ""])[:4]
        if name.startswith("vtable for "):
            vtables[_spaceless(name[len("vtable for "):])] = int(size, 16)
    return sorted(exports), vtables


def _spaceless(name):
    return name.replace(" ", "")


def vtable_sizes(ours, vtables, used):
    """Lines for used dynamic classes whose primary vtable, as our DWARF lays
    it out (single inheritance only), is not the size of libtriton's exported
    one; and how many were checked."""
    lines, checked = [], 0
    for name, rec in sorted(ours.items()):
        size = vtables.get(_spaceless(name)) if name in used else None
        slots = _slot_count(name, ours)
        if size is None or slots is None:
            continue
        checked += 1
        mine = 16 + 8 * slots  # offset-to-top, RTTI, then the slots
        if mine != size:
            lines.append(f"layout gate: {name}: vtable {mine} vs {size} bytes "
                         f"({slots} vs {(size - 16) // 8} virtual slots)")
    return lines, checked


def _slot_count(name, ours, depth=0):
    """Slots of `name`'s primary vtable, or None when unknown (no virtual
    methods seen, a base we lack, or more than one base)."""
    rec = ours.get(name)
    if rec is None or len(rec["bases"]) > 1 or depth > 50:
        return None
    count = max((int(s, 0) + 1 for s in rec["vslots"]), default=0)
    if rec["bases"]:
        base = _slot_count(rec["bases"][0][0], ours, depth + 1)
        if base is None:
            return None
        count = max(count, base)
    return count or None


def missing_symbols(inputs, exports):
    """Lines for mlir::/llvm:: symbols the inputs need and libtriton lacks."""
    undefined, defined = set(), set()
    for path in inputs:
        for line in _nm([path]):
            parts = line.split()
            if len(parts) >= 2 and parts[-2] == "U":
                undefined.add(parts[-1].split("@")[0])
            elif len(parts) == 3:
                defined.add(parts[-1])
    wanted = sorted(s for s in undefined - defined if _MLIR_SYMBOL.search(s))
    missing = [s for s in wanted if s not in exports]
    names = _demangle(missing)
    return [f"layout gate: symbol {name} ({sym}): not exported by libtriton"
            for sym, name in zip(missing, names)], len(wanted)


_MLIR_SYMBOL = re.compile(r"^_Z.*?\d(mlir|llvm)")


def _demangle(symbols):
    if not symbols:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True, text=True)
    names = out.stdout.splitlines()
    return names if len(names) == len(symbols) else symbols


def libtriton_facts(lib, cache_dir):
    """libtriton's layouts, exports and vtable sizes: cached per file."""
    st = os.stat(lib)
    key = {"format": CACHE_FORMAT, "path": os.path.realpath(lib), "size": st.st_size,
           "mtime": st.st_mtime_ns}
    tag = hashlib.sha1(key["path"].encode()).hexdigest()[:12]
    cache = os.path.join(cache_dir, f"libtriton-{tag}.json") if cache_dir else None
    if cache and os.path.exists(cache):
        with open(cache) as f:
            data = json.load(f)
        if data.get("key") == key:
            return data
    types = dwarf_types([lib])
    if not types:
        raise SystemExit(f"layout gate: {lib} has no DWARF type information")
    exports, vtables = libtriton_symbols(lib)
    data = {"key": key, "types": types, "exports": exports, "vtables": vtables}
    if cache:
        os.makedirs(cache_dir, exist_ok=True)
        # Per process: parallel test workers may fill the same cache at once.
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, cache)
    return data


def _few(names, most=8):
    shown = ", ".join(names[:most]) or "none"
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", nargs="+", help="objects / shared objects built from the layer")
    parser.add_argument("--libtriton", required=True)
    parser.add_argument("--cache", help="directory for libtriton's cached facts")
    parser.add_argument("--stamp", help="file to touch when the gate passes")
    parser.add_argument("--show", type=int, default=40, help="mismatch lines to print (0: all)")
    args = parser.parse_args(argv)
    start = time.time()
    facts = libtriton_facts(args.libtriton, args.cache)
    uses = set()
    ours = dwarf_types(args.inputs, uses)
    if not ours:
        raise SystemExit("layout gate: the inputs have no DWARF types "
                         "(compile them with -g -fstandalone-debug)")
    used = used_types(ours, uses)
    lines, compared, skipped, unused = compare(ours, facts["types"], used)
    vt_lines, vtables = vtable_sizes(ours, facts["vtables"], used)
    sym_lines, symbols = missing_symbols(args.inputs, set(facts["exports"]))
    mirror_lines, mirrors = compare_mirrors(ours, facts["types"])
    bad = lines + vt_lines + sym_lines + mirror_lines
    summary = (f"{compared} mlir/llvm types compared with libtriton's DWARF ({skipped} it does not "
               f"describe; {len(unused)} differ but are unused here: {_few(unused)}), "
               f"{vtables} vtable sizes checked, "
               f"{symbols} symbols resolved, {mirrors} mirrored triton types compared; "
               f"libtriton: {args.libtriton}; {time.time() - start:.1f} s")
    if bad:
        shown = bad if args.show <= 0 else bad[:args.show]
        print("\n".join(shown), file=sys.stderr)
        more = f" ({len(bad) - len(shown)} more not shown)" if len(shown) < len(bad) else ""
        print(f"layout gate: FAILED, {len(bad)} mismatches{more}: the headers do not match "
              f"this libtriton's ABI. {summary}", file=sys.stderr)
        return 1
    print(f"layout gate: OK, {summary}")
    if args.stamp:
        with open(args.stamp, "w") as f:
            f.write(summary + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
