"""Figures that read from the back of the room: the projector style's arithmetic, the text
sizes a PNG carries, and every classroom figure (notebook 07's dashboard, its static copy,
the RAG, replica and peers plots; notebook 02's explorer) drawing no text below 12 pt on
screen at 1280×800 (``OUTPUT_PX``), bigger still in presenter mode."""
import threading
from types import SimpleNamespace

import matplotlib
import pytest

from labsupport import projector
from labsupport.projector import NORMAL, OUTPUT_PX, PRESENTER, Style, png, png_info

KINDS = ("axis_label", "tick_label", "legend", "title")


def on_screen(data: bytes, style: Style = NORMAL) -> dict[str, float]:
    """CSS px of each kind of text once JupyterLab shrinks the PNG to ``OUTPUT_PX``."""
    from PIL import Image
    import io
    width = Image.open(io.BytesIO(data)).size[0]
    assert width == round(style.width_in * style.dpi)  # no tight crop: the width is known
    return {k: v * OUTPUT_PX / width for k, v in png_info(data)["text_px"].items()}


def test_points_give_the_pixels_asked_for():
    for st in (NORMAL, PRESENTER, Style(width_in=6.0)):
        assert st.font_pt * OUTPUT_PX / (72 * st.width_in) == pytest.approx(st.text_px)
    assert PRESENTER.text_px > NORMAL.text_px >= 16.0  # 12 pt at least
    with pytest.raises(ValueError, match="dpi"):
        Style(dpi=0)


def test_png_carries_its_text_sizes_and_title_and_png_info_reads_them():
    with projector.drawing() as st:
        fig = st.figure(3)
        ax = fig.subplots()
        ax.plot([0, 1], label="a line")
        ax.set(xlabel="x", ylabel="y", title="t")
        ax.legend()
    data = png(fig)
    info = png_info(data)
    sizes = info["text_px"]
    assert info["title"] == ""  # no suptitle
    assert set(sizes) >= set(KINDS)
    assert sizes["tick_label"] == pytest.approx(st.font_pt * st.dpi / 72, abs=0.01)
    assert png_info(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\0IEND\xaeB`\x82") == {}
    with pytest.raises(ValueError):
        png_info(b"GIF89a")


def test_drawing_restores_the_rc_even_from_two_threads():
    before = matplotlib.rcParams["font.size"]

    def draw():
        for _ in range(20):
            with projector.drawing(presenter=True):
                pass
    threads = [threading.Thread(target=draw) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert matplotlib.rcParams["font.size"] == before


def _dashboard_figure(presenter: bool):
    from labsupport.serving.demo import dashboard_view
    cfg = {"max_batch": 16, "max_delay_ms": 5.0, "policy": "work_conserving", "max_queue": 128}
    ss = [{"t": 1.5 * i, "queue_depth": i % 7, "mean_batch": 1 + i % 5, "p50_ms": 30.0 + i,
           "p99_ms": 90.0 + i, "throughput_rps": 30.0, "rejected_rps": 300.0 * (i > 20),
           "config": cfg} for i in range(40)]
    return dashboard_view.figure(ss, [(12.0, "batch→1"), (30.0, "delay→9 window")], cfg, presenter=presenter)


def _explorer_figure(presenter: bool):
    from labsupport.notebook.explorer import BatchingExplorer
    e = BatchingExplorer(n=300)
    return e.figure(e.result())


def _rag_figure(presenter: bool):
    from labsupport.serving.demo.rag import RagPipeline
    stub = SimpleNamespace(gateway_batches=[3, 5, 2, 8], batch=SimpleNamespace(max_batch=16),
                           generator=SimpleNamespace(rows_per_step=[1, 2, 4, 3, 1]),
                           engine=SimpleNamespace(cfg=SimpleNamespace(max_seqs=8)))
    return RagPipeline.figure(stub)


def _replicas_figure(presenter: bool):
    from labsupport.serving.demo import replica_lesson as rl
    theory = [{"replicas": c, "load": rho, "theory_wait_ms": 5.0 * rho / c,
               "least_outstanding_wait_ms": 5.2 * rho / c} for c in (1, 2) for rho in (0.5, 0.8)]
    tails = [{"routing": r, "p99_ms": 40.0, "p999_ms": 50.0}
             for r in ("round_robin", "least_outstanding", "p2c")]
    return rl.plot(theory, tails)


def _peers_figure(presenter: bool):
    from labsupport.benches.peers.plot import figure
    from labsupport.benches.peers.config import PeersConfig, config_json
    cpu = {"other_cores": 0.5}
    peers = {n: {"failed": 0, "saturation": {"fraction_of_ideal": f, "cpu": cpu},
                 "slo": {"fraction_of_ideal": f / 2, "at_rate": {"cpu": cpu}},
                 "light": {"latency_ms": {"p50": p}, "cpu": cpu}}
             for n, f, p in (("lab_inprocess", 0.9, 5.6), ("lab_http", 0.5, 6.5),
                             ("pytriton", 0.4, 11.0), ("ray_serve", 0.1, 10.6))}
    return figure({"config": config_json(PeersConfig()), "peers": peers, "cpus": 2,
                   "loadavg": [1.0, 1.0, 1.0]})


FIGURES = {"dashboard": _dashboard_figure, "explorer": _explorer_figure, "rag": _rag_figure,
           "replicas": _replicas_figure, "peers": _peers_figure}


@pytest.mark.parametrize("name", FIGURES)
def test_classroom_figures_read_from_the_back_of_the_room(name):
    sizes = on_screen(png(FIGURES[name](False)))
    assert set(sizes) >= {"axis_label", "tick_label"}
    small = {k: round(v, 1) for k, v in sizes.items() if v < NORMAL.text_px - 0.01}
    assert not small, f"{name}: text under {NORMAL.text_px} px on screen: {small}"


def test_the_dashboard_png_names_its_config():
    assert png_info(png(_dashboard_figure(False)))["title"] == (
        "max_batch=16 · max_queue=128 · work_conserving")  # no unused delay (issue 35)


def test_presenter_mode_is_bigger_still():
    normal, big = (on_screen(png(_dashboard_figure(p)), st) for p, st in
                   ((False, NORMAL), (True, PRESENTER)))
    assert all(big[k] >= PRESENTER.text_px - 0.01 for k in big)
    assert all(big[k] > normal[k] for k in normal)


def test_tiles_one_grid_line_per_row_nothing_wraps():
    html = projector.tiles_html([[("a", "1"), ("b", "2")], [("c", "3")]])
    assert html.count("display:grid") == 2 and "repeat(2," in html and "repeat(1," in html
    assert html.count("white-space:nowrap") == 6 and "class='lab-readout'" in html
