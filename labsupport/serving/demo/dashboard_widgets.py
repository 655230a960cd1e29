"""The live dashboard's widgets bound to its one state (``dashboard.Dashboard``): the knob
widgets, the presenter switch and the load's controls send what the user moves; ``show``
puts the state into every widget (no HTTP); ``draw`` puts a new plot in.

A burst of moves (keyboard steps, a drag) becomes one ``POST /config`` (or one load
``set_rate``) after ``debounce_s`` of quiet (``Debounce``); a widget value set by ``show``
itself is never sent back.
"""
from __future__ import annotations

import threading

from ...batching.config import knobs
from . import dashboard_view
from .debounce import Debounce

KNOBS = tuple(k.name for k in knobs() if k.slider or k.choices)  # what the widgets set
LOAD_KNOB = "load_rps"  # the demo load's rate slider (req/s)


class DashboardWidgets:
    """The widgets of ``dash`` (``w``, by name) in one box (``box``); ``cfg``: the service's
    config to build them from."""

    def __init__(self, dash, cfg: dict, *, debounce_s: float):
        self.dash = dash
        self.moves = Debounce(self._send, debounce_s)  # slider moves not sent yet
        self._tls = threading.local()  # .syncing: widget values set by show() itself
        load = dash.load
        self.w, self.box = dashboard_view.controls(
            cfg, presenter=dash.presenter, load_rps=None if load is None else load.rate)
        for name in KNOBS + ((LOAD_KNOB,) if load is not None else ()):
            self.w[name].observe(self._on_knob, names="value")
        self.w["presenter"].observe(self._on_presenter, names="value")
        if load is not None:
            self.w["pause"].observe(self._on_pause, names="value")

    @property
    def pending(self) -> dict:
        """Moves not sent yet, by knob name."""
        return self.moves.pending

    def show(self) -> None:
        """Every widget from the dashboard's state: knob values, pause button, readout,
        load line, status line (a move not sent yet stays where the user put it)."""
        dash, w = self.dash, self.w
        cfg, load = dash.live_config, dash.load
        self._tls.syncing = True
        try:
            pending = self.moves.pending
            for name in KNOBS:
                if name in cfg and name not in pending:
                    _show_value(w[name], cfg[name])
            if load is not None:
                if LOAD_KNOB not in pending:
                    _show_value(w[LOAD_KNOB], load.rate)
                w["pause"].value = bool(load.paused)
                w["pause"].description = "resume load" if load.paused else "pause load"
                w["pause"].icon = "play" if load.paused else "pause"
        finally:
            self._tls.syncing = False
        w["readout"].value = dash.readout()
        w["status"].value = dashboard_view.status_html(dash.status(), dash.beat,
                                                       presenter=dash.presenter)
        if load is not None:
            w["load"].value = dashboard_view.load_html(*dash.load_lines(),
                                                       presenter=dash.presenter)

    def draw(self, png: bytes) -> None:
        self.w["image"].value = png

    def flush(self) -> None:
        """Send a move not sent yet now."""
        self.moves.flush()

    def _on_knob(self, change) -> None:
        """A user moved a knob: remember it and post once the moves stop."""
        if getattr(self._tls, "syncing", False):
            return  # the service's own value, shown by show(): nothing to post
        self.dash.touched()  # polls already out must not set the slider back
        name = next(k for k, w in self.w.items() if w is change["owner"])
        self.moves.add(name, change["new"])

    def _send(self, **knobs) -> None:
        """Post the debounced knobs as one change (the load's rate to the load); a refusal
        is shown, never raised."""
        rate = knobs.pop(LOAD_KNOB, None)
        try:
            if rate is not None:
                self.dash.set_load_rate(rate)
            if knobs:
                self.dash.configure(**knobs)
        except Exception as exc:  # shown in the status line; the widget keeps working
            self.dash.said(f"config refused: {exc}")

    def _on_presenter(self, change) -> None:
        self.dash.presenter = bool(change["new"])
        self.w["css"].value = dashboard_view.widget_css(self.dash.presenter)
        self.dash.redraw()

    def _on_pause(self, change) -> None:
        if getattr(self._tls, "syncing", False):
            return
        dash = self.dash
        (dash.load.pause if change["new"] else dash.load.resume)()
        if not change["new"]:
            dash.start()  # resuming the load brings a stopped plot back too (one button)
        dash.said(None)


def _show_value(slider, value) -> None:
    """Set a widget to ``value``, first widening a slider's range (or choices) that cannot
    hold it."""
    if slider.value == value:
        return
    options = getattr(slider, "options", None)
    if options is not None and value not in options and isinstance(value, int):
        slider.options = sorted(set(options) | {value})
    if getattr(slider, "max", value) < value:
        slider.max = value
    if getattr(slider, "min", value) > value:
        slider.min = value
    slider.value = value
