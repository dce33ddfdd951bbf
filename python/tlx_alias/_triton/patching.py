"""The one way tlx_alias changes triton: `patch(owner, name, make_replacement)`.

Each replacement is made from the attribute it replaces (kept as
`stock(replacement)`), is applied at most once per process, and is recorded
(`patches()`), so that a test can assert every patched name, and the
signature tlx_alias relies on, on each supported triton."""
import dataclasses
import inspect

_STOCK = "_tlx_alias_stock"


@dataclasses.dataclass(frozen=True)
class Patch:
    owner: object
    name: str
    stock: object
    replacement: object

    @property
    def where(self):
        """'module.name', 'module.Class.name' or 'module.Class().name' (an instance's)."""
        if inspect.ismodule(self.owner):
            return f"{self.owner.__name__}.{self.name}"
        if inspect.isclass(self.owner):
            return f"{self.owner.__module__}.{self.owner.__qualname__}.{self.name}"
        kind = type(self.owner)
        return f"{kind.__module__}.{kind.__qualname__}().{self.name}"


_patches = []


def patch(owner, name, make_replacement):
    """Sets `owner.name` to `make_replacement(current)`, unless ours is
    there already; returns what is there afterwards."""
    current = getattr(owner, name)
    if hasattr(current, _STOCK):  # patched already (a second install)
        return current
    replacement = make_replacement(current)
    setattr(replacement, _STOCK, current)
    setattr(owner, name, replacement)
    _patches.append(Patch(owner, name, current, replacement))
    return replacement


def stock(function):
    """The triton function a replacement of ours replaced (or the function)."""
    return getattr(function, _STOCK, function)


def patches():
    """Every patch applied in this process, in order."""
    return list(_patches)
