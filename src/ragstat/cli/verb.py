"""Verbs whose options are a dataclass: typer sees the fields as parameters, the verb
receives one frozen object.

Shared groups of options (analysis, design, engine, output) live in
:mod:`ragstat.cli.options`; a verb's options class inherits the groups it takes and
adds its own fields, so no verb spells out a long parameter list.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

import typer.core

__all__ = ["Group", "options_command", "settings_of"]

T = TypeVar("T")


class Group(typer.core.TyperGroup):
    """A command group whose own ``--help``, when not given, is False rather than None.

    Typer coerces a flag's value through a pydantic adapter unless it is already a bool, so
    ``ragstat VERB --help`` would import pydantic (~0.1 s) for the group's unused flag."""

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option


def _owner_rank(cls: type, name: str) -> int:
    """0 for a field the verb's class declares, then its groups in the order inherited."""
    for rank, owner in enumerate(cls.__mro__):
        if name in inspect.get_annotations(owner):
            return rank
    return len(cls.__mro__)


def _parameters(cls: type) -> list[inspect.Parameter]:
    """The fields as keyword parameters: the verb's own first, then each group's."""
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = sorted(dataclasses.fields(cls), key=lambda f: _owner_rank(cls, f.name))
    out = []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            default: Any = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = inspect.Parameter.empty
        out.append(
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=hints[f.name]
            )
        )
    return out


def options_command(cls: type[T]) -> Callable[[Callable[[T], None]], Callable[..., None]]:
    """Decorate ``verb(options: cls)`` into a typer command taking ``cls``'s fields."""
    params = _parameters(cls)

    def decorate(verb: Callable[[T], None]) -> Callable[..., None]:
        @functools.wraps(verb)
        def command(**kwargs: Any) -> None:
            verb(cls(**kwargs))

        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        del command.__wrapped__  # typer reads the signature above, not the verb's
        return command

    return decorate


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value.resolve())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def settings_of(options: Any, exclude: Iterable[str] = ()) -> dict[str, Any]:
    """The options as the run's recorded config (paths absolute; ``exclude``d names and the
    output options left out)."""
    skip = {"out", "force", "as_json", *exclude}
    return {
        f.name: _plain(getattr(options, f.name))
        for f in dataclasses.fields(options)
        if f.name not in skip
    }
