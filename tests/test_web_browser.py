"""The browser app in a real browser: Debian's Chromium, headless, driven by Selenium.

The app runs in a thread on a free localhost port. One test opens a recorded game in the replay viewer and
steps through it with the buttons, the slider, play/pause and the seat switch; the other plays a whole game
of Roll Through the Ages against random play by clicking moves until the end. Both check that the picture
was drawn: its <img> loaded, and a screenshot of it decodes to many distinct colours. Screenshots are saved
in pytest's temp folder.

The browser and its driver come from Debian (scripts/install_browser.sh, which .ci/run calls): the paths
are given explicitly, so Selenium never tries to download a driver. Without them these tests skip, except
in CI (the CI variable set), where they fail.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
WAIT_SECONDS = 20
PLAY_GAME_SECONDS = 60  # a whole game of clicks; about 15 s here


def _missing() -> str | None:
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        return f"{CHROMIUM} and {CHROMEDRIVER} are needed (bash scripts/install_browser.sh installs them)"
    for module, extra in (("selenium", "test"), ("flask", "web")):
        try:
            __import__(module)
        except ModuleNotFoundError:
            return f"{module} is not installed (pip install 'meeple[{extra}]')"
    return None


if _missing() is not None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {_missing()}", pytrace=False)
    pytest.skip(_missing(), allow_module_level=True)

from PIL import Image  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.actions.action_builder import ActionBuilder  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402
from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

from meeple.agents import make_agent  # noqa: E402
from meeple.envs.canvas import MIN_TEXT_PX  # noqa: E402
from meeple.envs.record import LiveGame, parse_record, replay, save_record  # noqa: E402
from meeple.web.app import create_app  # noqa: E402

REPLAY_GAME = "hadara"


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    live = LiveGame(REPLAY_GAME, {"num_players": 2}, seed=4)
    live.play_out([make_agent("random", REPLAY_GAME, 2)] * 2, np.random.default_rng(4))
    record = live.to_record(["random", "random"])
    save_record(record, folder / "hadara-2p.json")
    return folder, record


class QuietHandler(WSGIRequestHandler):
    """No log line per request (hundreds per test); errors are still logged."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@pytest.fixture(scope="module")
def server(records):
    """The app on a free localhost port, served from a thread; yields its base URL."""
    httpd = make_server("127.0.0.1", 0, create_app(records[0]), threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    profile = tmp_path_factory.mktemp("chromium-profile")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1400,1000", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # Selenium Manager must not look for anything online
        driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
        yield driver
        driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory):
    return tmp_path_factory.mktemp("screenshots")


def wait_for(driver, condition, message: str, timeout: float = WAIT_SECONDS):
    return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: condition(d), message)


def text_of(driver, element_id: str) -> str:
    return driver.find_element(By.ID, element_id).text


def picture_loaded(driver) -> bool:
    return driver.execute_script(
        "const img = document.getElementById('picture');"
        "return !img.hidden && img.complete && img.naturalWidth > 0 && img.src.includes('picture.png');")


def picture_src(driver) -> str:
    return driver.execute_script("return document.getElementById('picture').currentSrc;")


def assert_picture_drawn(driver, path: Path) -> None:
    """The picture's <img> loaded and, on screen, shows many colours (a drawing, not a blank box)."""
    wait_for(driver, picture_loaded, "the picture did not load")
    element = driver.find_element(By.ID, "picture")
    png = element.screenshot_as_png
    path.write_bytes(png)
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    assert shot.width > 200 and shot.height > 100, shot.size
    colours = shot.getcolors(1 << 24)
    assert len(colours) > 100, f"only {len(colours)} colours in the picture"
    assert max(count for count, _ in colours) < 0.9 * shot.width * shot.height  # not one flat colour


def assert_board_drawn(driver, path: Path) -> None:
    """The play page's board shows the picture: a screenshot of it has many colours."""
    wait_for(driver, lambda d: d.execute_script(
        "const i = document.getElementById('board-picture'); return i !== null && i.getBBox().width > 0;"), "no picture")
    time.sleep(0.3)
    png = driver.find_element(By.CSS_SELECTOR, ".board-frame").screenshot_as_png
    path.write_bytes(png)
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    assert len(shot.getcolors(1 << 24)) > 100, "the board shows no picture"


def assert_no_console_errors(driver) -> None:
    errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


def test_replay_viewer_steps_through_a_record(server, records, browser, screenshots):
    _, record = records
    steps = len(record.actions)
    browser.get(f"{server}/replay")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#record-list button.record"), "no records listed")
    entry = browser.find_element(By.CSS_SELECTOR, "#record-list button.record")
    assert "hadara-2p.json" in entry.text and f"{steps} moves" in entry.text
    entry.click()
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"0 / {steps}", "the record did not open")
    assert_picture_drawn(browser, screenshots / "replay-step-0.png")
    assert text_of(browser, "position").startswith("After move 0: player_")

    for k in (1, 2, 3):
        browser.find_element(By.ID, "forward").click()
        wait_for(browser, lambda d, k=k: text_of(d, "step-counter") == f"{k} / {steps}", f"step {k} not shown")
    browser.find_element(By.ID, "back").click()
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"2 / {steps}", "back did not go back")
    wait_for(browser, lambda d: text_of(d, "position").startswith("After move 2:"), "the position text lags")
    current = browser.find_element(By.CSS_SELECTOR, "#log li.current")
    assert current.get_attribute("data-step") == "2" and re.match(r"2\.\s*player_\d", current.text)
    played = browser.find_elements(By.CSS_SELECTOR, "#log li:not(.future)")
    assert len(played) == 2 and all(item.text.strip() for item in played)
    assert len(browser.find_elements(By.CSS_SELECTOR, "#log li")) == steps
    wait_for(browser, picture_loaded, "the picture of step 2 did not load")
    assert "/steps/2/picture.png" in picture_src(browser)

    # the slider jumps, the seat switch redraws from that seat, play runs on until paused
    middle = steps // 2
    browser.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                           "s.dispatchEvent(new Event('input'));", middle)
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"{middle} / {steps}", "the slider did not jump")
    Select(browser.find_element(By.ID, "seat")).select_by_value("1")
    wait_for(browser, lambda d: "seat=1" in picture_src(d) and picture_loaded(d), "the seat view did not load")
    assert text_of(browser, "step-counter") == f"{middle} / {steps}"
    browser.find_element(By.ID, "play-pause").click()
    wait_for(browser, lambda d: int(text_of(d, "step-counter").split()[0]) >= middle + 2, "play did not advance", 10)
    browser.find_element(By.ID, "play-pause").click()
    paused_at = text_of(browser, "step-counter")
    time.sleep(1.0)
    assert text_of(browser, "step-counter") == paused_at and text_of(browser, "play-pause") == "play"
    browser.find_element(By.ID, "last").click()
    wait_for(browser, lambda d: text_of(d, "position").startswith(f"After move {steps}: the game is over"), "no end")
    assert f"scores {' : '.join(map(str, record.scores))}" in text_of(browser, "position")
    lines = browser.find_elements(By.CSS_SELECTOR, "#chart polyline")
    assert len(lines) == 2  # one score line per seat
    assert_picture_drawn(browser, screenshots / "replay-end-seat1.png")
    browser.save_screenshot(str(screenshots / "replay-page.png"))
    assert_no_console_errors(browser)


def test_replay_board_shows_the_move_played_next(server, records, browser):
    """Over the replay's picture, the move played next is highlighted where it sits (the play page's target for
    it), named below the picture, and a click on it steps forward one move."""
    _, record = records
    steps = len(record.actions)
    browser.set_window_size(1500, 1400)
    browser.get(f"{server}/replay")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#record-list button.record"), "no records listed")
    browser.find_element(By.CSS_SELECTOR, "#record-list button.record").click()
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"0 / {steps}", "the record did not open")
    for step in range(steps):  # forward to the first position whose next move has a place on the picture
        wait_for(browser, lambda d, k=step: text_of(d, "next-move").startswith("Next: ")
                 and text_of(d, "step-counter") == f"{k} / {steps}", f"step {step}: the next move is not named")
        if browser.find_elements(By.CSS_SELECTOR, "#replay-board g.target.next-move"):
            break
        browser.find_element(By.ID, "forward").click()
    else:
        pytest.fail("no move of the record was shown on the picture")
    wait_for(browser, picture_loaded, "the picture did not load")
    target = browser.find_element(By.CSS_SELECTOR, "#replay-board g.target.next-move")
    assert target.get_attribute("data-actions") == str(record.actions[step])
    assert target.find_element(By.TAG_NAME, "title").get_attribute("textContent").startswith("played next: ")
    assert "click it to step forward" in text_of(browser, "next-move")
    point = browser.execute_script(TARGET_POINT.replace("#board g.target", "#replay-board g.target"),
                                   target.get_attribute("data-target"))
    assert point is not None, "the highlighted move is covered"
    click_at(browser, *point)
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"{step + 1} / {steps}", "a click did not step forward")
    browser.find_element(By.ID, "last").click()
    wait_for(browser, lambda d: text_of(d, "next-move") == "The game is over.", "the end names no next move")
    assert not browser.find_elements(By.CSS_SELECTOR, "#replay-board g.target")
    assert_no_console_errors(browser)


def test_replay_viewer_opens_uploaded_files(server, browser, tmp_path):
    live = LiveGame("roll_through_the_ages", {"num_players": 3}, seed=8)
    live.play_out([make_agent("random", "roll_through_the_ages", 3)] * 3, np.random.default_rng(8))
    save_record(live.to_record(["random", "heuristic", "random"]), tmp_path / "three.json")
    (tmp_path / "broken.json").write_text('{"format": "meeple.record", "version": 2, "game": "chess"}')
    browser.get(f"{server}/replay")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#record-list button.record"), "no records listed")
    browser.find_element(By.ID, "upload").send_keys(str(tmp_path / "broken.json"))
    wait_for(browser, lambda d: d.find_element(By.ID, "error").is_displayed(), "no error for a broken file")
    assert "broken.json: not a record this server can replay" in text_of(browser, "error")
    browser.find_element(By.ID, "upload").send_keys(str(tmp_path / "three.json"))
    steps = len(live.actions)
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"0 / {steps}", "the uploaded record did not open")
    assert text_of(browser, "replay-title") == "Roll Through the Ages: three.json"
    assert not browser.find_element(By.ID, "error").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#chart polyline")) == 3
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seat option")) == 4  # spectator and three seats
    browser.find_element(By.ID, "last").click()
    wait_for(browser, lambda d: text_of(d, "step-counter") == f"{steps} / {steps}", "last did not jump to the end")
    wait_for(browser, picture_loaded, "the picture of the uploaded record did not load")
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert len(errors) == 1 and "422" in errors[0], errors  # the browser reports the refused upload, nothing else


GAMES = ("roll_through_the_ages", "hadara", "carpe_diem", "attika", "utopia")
BOARD_GAME_SECONDS = 420  # a whole game by clicks; 20-150 s here, depending on the game
SCREENSHOTS_TO = os.environ.get("MEEPLE_SCREENSHOTS")  # set: the mid-game board pictures are saved there too
# the kind of target the mid-game picture of each game should show when the game offers one
SHOWCASE = {"roll_through_the_ages": "target-rect", "hadara": "target-rect", "carpe_diem": "target-rect",
            "attika": "target-hex", "utopia": "target-line"}

# the page's state in one round trip: the targets on the board (with a point inside each, in viewport
# coordinates, after scrolling it into view when asked), the version, the end, an error, an open menu
PAGE_STATE = """
const t = document.getElementById('table'), e = document.getElementById('error');
const menu = document.getElementById('board-menu');
return {version: t.dataset.version, done: t.dataset.done === 'true', error: e.hidden ? '' : e.textContent,
  menu: menu.hidden ? [] : [...menu.querySelectorAll('button[data-action]')].map(b => b.dataset.action),
  legal: [...document.querySelectorAll('#moves button.move')].map(b => b.dataset.action),
  targets: [...document.querySelectorAll('#board g.target')].map(g => ({id: g.dataset.target,
    actions: g.dataset.actions.split(' '), kind: g.classList[1]})),
  fonts: [...document.querySelectorAll('#board text')].map(x =>
    parseFloat(getComputedStyle(x).fontSize) * document.getElementById('board').getScreenCTM().a),
  scale: document.getElementById('board').getScreenCTM().a,
  hints: [...document.querySelectorAll('#board rect.hint')].filter(h => h.querySelector('title').textContent).length,
  glossary: document.querySelectorAll('#glossary li').length};
"""

# a point inside target `id`, scrolled into view: the middle of a line, the centre of any other shape; null
# when another element covers it there
TARGET_POINT = """
const g = [...document.querySelectorAll('#board g.target')].find(x => x.dataset.target === arguments[0]);
g.scrollIntoView({block: 'center', inline: 'center'});
const shape = g.querySelector('.hit') || g.querySelector('.shape');
let x, y;
if (shape.tagName === 'path') {
  const p = shape.getPointAtLength(shape.getTotalLength() / 2), m = shape.getScreenCTM();
  x = p.x * m.a + p.y * m.c + m.e; y = p.x * m.b + p.y * m.d + m.f;
} else {
  const r = shape.getBoundingClientRect(); x = r.left + r.width / 2; y = r.top + r.height / 2;
}
x = Math.round(x); y = Math.round(y);  // where the click lands
const hit = document.elementFromPoint(x, y);
return hit && hit.closest('g.target') === g ? [x, y] : null;
"""


# the centre of a code's hint box on the picture that nothing covers, scrolled into view, with its tooltip
HINT_POINT = """
for (const box of document.querySelectorAll('#board rect.hint')) {
  box.scrollIntoView({block: 'center', inline: 'center'});
  const r = box.getBoundingClientRect(), x = Math.round(r.left + r.width / 2), y = Math.round(r.top + r.height / 2);
  if (document.elementFromPoint(x, y) === box) return [x, y, box.querySelector('title').textContent];
}
return null;
"""


def click_at(driver, x: int, y: int) -> None:
    """A real mouse click at viewport point (x, y): the pointer moves there at once (Selenium's default move
    takes 250 ms, most of a whole game's clicking time)."""
    actions = ActionBuilder(driver, duration=0)
    actions.pointer_action.move_to_location(x, y)
    actions.pointer_action.click()
    actions.perform()


@pytest.mark.parametrize("game_name", GAMES)
def test_play_a_whole_game_by_clicking_the_board(server, browser, screenshots, game_name):
    """A whole game against random play, every move made by clicking the board (a highlighted target, and the
    menu it opens where several moves share it): never the move list. The board's targets are exactly the
    legal moves the move list offers."""
    browser.set_window_size(1500, 1400)
    browser.get(f"{server}/play")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"), "no games offered")
    Select(browser.find_element(By.ID, "game")).select_by_value(game_name)
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    Select(browser.find_element(By.ID, "opponent")).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    table = browser.find_element(By.ID, "table")
    wait_for(browser, lambda d: table.is_displayed() and table.get_attribute("data-version") is not None, "no game", 120)
    rng = np.random.default_rng(sum(map(ord, game_name)))
    started, clicks, menus, shot = time.monotonic(), 0, 0, 0  # shot: 1 a mid-game picture, 2 one showing SHOWCASE
    hinted = listed = 0  # the most codes explained by tooltips over the picture, and in the page's list
    while True:
        page = browser.execute_script(PAGE_STATE)
        assert not page["error"], page["error"]
        if page["done"]:
            break
        assert time.monotonic() - started < BOARD_GAME_SECONDS, f"the game took over {BOARD_GAME_SECONDS} s ({clicks} clicks)"
        assert all(size >= 12 for size in page["fonts"]), f"board text below 12 px on screen: {page['fonts']}"
        # the picture's own text (at least canvas.MIN_TEXT_PX, tests/test_pictures.py) is shown at this scale
        assert page["scale"] * MIN_TEXT_PX >= 12, f"the picture is shown at {page['scale']:.3f} of its size"
        hinted, listed = max(hinted, page["hints"]), max(listed, page["glossary"])
        on_board = sorted(a for t in page["targets"] for a in t["actions"])
        assert on_board == sorted(page["legal"]) and on_board, (page["version"], on_board, page["legal"])
        kinds = [t["kind"] for t in page["targets"]]
        showcase = 2 if SHOWCASE[game_name] in kinds else 1
        if shot < showcase and clicks >= 8 and sum(k != "target-button" for k in kinds) >= 2:
            wait_for(browser, lambda d: d.execute_script(
                "const i = document.getElementById('board-picture'); return i && i.getBBox().width > 0;"), "no picture")
            time.sleep(0.3)  # the picture's pixels
            png = browser.find_element(By.CSS_SELECTOR, ".board-frame").screenshot_as_png
            (screenshots / f"play-{game_name}.png").write_bytes(png)
            if SCREENSHOTS_TO:
                (Path(SCREENSHOTS_TO) / f"play-{game_name}.png").write_bytes(png)
            shot = showcase
        order = rng.permutation(len(page["targets"]))
        for k in order:  # a target no other element covers where it is clicked
            target = page["targets"][int(k)]
            point = browser.execute_script(TARGET_POINT, target["id"])
            if point is not None:
                break
        assert point is not None, f"no target of {[t['id'] for t in page['targets']]} can be clicked"
        click_at(browser, *point)
        if len(target["actions"]) > 1:
            wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board-menu button[data-action]"), "no menu")
            options = browser.find_elements(By.CSS_SELECTOR, "#board-menu button[data-action]")
            assert sorted(o.get_attribute("data-action") for o in options) == sorted(target["actions"])
            options[int(rng.integers(len(options)))].click()
            menus += 1
        clicks += 1
        wait_for(browser, lambda d, v=page["version"]: d.execute_script(
            "return document.getElementById('table').dataset.version") != v or d.execute_script(
            "const e = document.getElementById('error'); return !e.hidden;"), "the move was not played", 120)

    result = browser.find_element(By.ID, "result")
    wait_for(browser, lambda d: result.is_displayed(), "no result shown")
    assert result.text.splitlines()[0] in ("You win", "You lose", "You share the win")
    assert text_of(browser, "status").startswith("The game is over after")
    assert not browser.find_elements(By.CSS_SELECTOR, "#board g.target")
    href = browser.find_element(By.ID, "download").get_attribute("href")
    with urllib.request.urlopen(href, timeout=30) as response:
        record = parse_record(response.read())
    final = replay(record)
    assert final.game.scores(final.states[-1])[0].tolist() == record.scores
    print(f"\n{game_name}: {clicks} board clicks ({menus} through a menu) in {time.monotonic() - started:.1f} s")
    assert shot, "no mid-game position with board targets to photograph"
    assert hinted and listed, "no code of the picture was explained"
    assert_no_console_errors(browser)


def test_hovering_a_target_says_what_the_move_does(server, browser):
    browser.set_window_size(1500, 1400)
    browser.get(f"{server}/play")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"), "no games offered")
    Select(browser.find_element(By.ID, "game")).select_by_value("utopia")
    browser.find_element(By.ID, "start").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#board g.target"), "no targets", 120)
    # the land edges and sea routes are drawn, each with its name as a tooltip
    edges = browser.find_elements(By.CSS_SELECTOR, "#board path.land-edge")
    assert len(edges) > 10 and len(browser.find_elements(By.CSS_SELECTOR, "#board path.sea-route")) > 5
    assert edges[0].find_element(By.TAG_NAME, "title").get_attribute("textContent").startswith("land edge ")
    target = browser.find_elements(By.CSS_SELECTOR, "#board g.target")[0]
    point = browser.execute_script(TARGET_POINT, target.get_attribute("data-target"))
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(*point)
    actions.perform()
    hover = text_of(browser, "board-hover")
    # the hover line is the target's description: its label and, in words, what its moves do (the same text
    # as the move list's entries for those actions); the tooltip adds what the codes they name mean
    tooltip = target.find_element(By.TAG_NAME, "title").get_attribute("textContent").split("\n")
    assert hover == tooltip[0] and len(tooltip) > 1 and all(line.split(": ", 1)[1] for line in tooltip[1:])
    listed = {b.get_attribute("data-action"): b.text.split(None, 1)[1]
              for b in browser.find_elements(By.CSS_SELECTOR, "#moves button.move")}
    assert all(listed[a] in hover for a in target.get_attribute("data-actions").split()), (hover, listed)
    # a code of the picture (a district's, a civilization's) explains itself when hovered, in its tooltip and
    # in the hover line; the page lists every code of the board too
    hint = browser.execute_script(HINT_POINT)
    assert hint is not None, "no code of the picture can be hovered"
    actions = ActionBuilder(browser)
    actions.pointer_action.move_to_location(*hint[:2])
    actions.perform()
    assert text_of(browser, "board-hover") == hint[2] and re.match(r"[^:]+: \w", hint[2]), hint
    browser.find_element(By.CSS_SELECTOR, "#glossary-details summary").click()
    entries = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#glossary li")]
    assert any(entry.startswith("FIR-1 district FIR-1: on the Fire island") for entry in entries), entries[:5]
    assert_no_console_errors(browser)


def test_play_a_whole_game_against_random(server, browser, screenshots):
    """The move list stays the keyboard path: a whole game by clicking its buttons."""
    browser.get(f"{server}/play")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"), "no games offered")
    Select(browser.find_element(By.ID, "game")).select_by_value("roll_through_the_ages")
    Select(browser.find_element(By.ID, "players")).select_by_value("2")
    Select(browser.find_element(By.ID, "seat")).select_by_value("0")
    Select(browser.find_element(By.ID, "opponent")).select_by_value("random")
    browser.find_element(By.ID, "start").click()
    table = browser.find_element(By.ID, "table")
    wait_for(browser, lambda d: table.is_displayed() and table.get_attribute("data-version") is not None, "no game")
    assert "you are player_0 against random" in text_of(browser, "play-title")
    assert_board_drawn(browser, screenshots / "play-start.png")

    rng = np.random.default_rng(7)
    started, clicks = time.monotonic(), 0
    while True:
        # one round trip to the browser for what the page shows (each WebDriver call costs milliseconds)
        page = browser.execute_script(
            "const t = document.getElementById('table'), e = document.getElementById('error');"
            "return {version: t.dataset.version, done: t.dataset.done === 'true', error: e.hidden ? '' : e.textContent,"
            " moves: [...document.querySelectorAll('#moves button.move')].map(b => [b.dataset.action, b.textContent])};")
        assert not page["error"], page["error"]
        if page["done"]:
            break
        assert time.monotonic() - started < PLAY_GAME_SECONDS, f"the game took over {PLAY_GAME_SECONDS} s ({clicks} clicks)"
        assert page["moves"], f"no moves offered at version {page['version']} though the game is not over"
        if clicks == 5:
            browser.save_screenshot(str(screenshots / "play-midgame.png"))
        assert all(action.isdigit() and name.startswith(action) and len(name) > len(action) for action, name in page["moves"])
        action = page["moves"][int(rng.integers(len(page["moves"])))][0]
        browser.find_element(By.CSS_SELECTOR, f"#moves button[data-action='{action}']").click()
        clicks += 1
        wait_for(browser, lambda d, v=page["version"]: d.execute_script(
            "return document.getElementById('table').dataset.version") != v, "the move was not played")

    result = browser.find_element(By.ID, "result")
    wait_for(browser, lambda d: result.is_displayed(), "no result shown")
    assert result.text.splitlines()[0] in ("You win", "You lose", "You share the win")
    assert "you (player_0):" in result.text and "player_1 (random):" in result.text
    assert text_of(browser, "status").startswith("The game is over after")
    assert not browser.find_elements(By.CSS_SELECTOR, "#moves button.move")
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log) == int(table.get_attribute("data-version"))
    # the narration names the mover once per entry; the agent behind a seat is in the entry's tooltip
    assert any(re.match(r"\d+\.\s*player_1:", item.text) and item.get_attribute("title") == "player_1: random" for item in log)
    assert any(re.match(r"\d+\.\s*player_0 \(you\):", item.text) for item in log)
    assert_board_drawn(browser, screenshots / "play-end.png")
    browser.save_screenshot(str(screenshots / "play-page.png"))

    href = browser.find_element(By.ID, "download").get_attribute("href")
    with urllib.request.urlopen(href, timeout=30) as response:
        record = parse_record(response.read())
    assert record.agents == ["human", "random"] and len(record.actions) == len(log)
    final = replay(record)
    assert final.game.scores(final.states[-1])[0].tolist() == record.scores
    print(f"\nplayed {clicks} moves by clicking in {time.monotonic() - started:.1f} s; screenshots in {screenshots}")
    assert_no_console_errors(browser)
