"""The feed card says it the way runners expect (issue 24, part 4), in a real browser (Debian's
headless Chromium through chromedriver), in light and in dark: the weekday and date in the
workout's own zone ("Today", "Yesterday" for recent ones), durations as h:mm:ss, pace for a run
and speed for a ride (figures checked against the devices' own, read from the FIT files'
sessions), the heatmap of a workout that has heart rate, a compact card for a workout without a
route, and the picture that fits the device's pixels on first paint: @2x for a box wider than
512 px or a 3x phone, @1x for a 1x phone (srcset with widths, sizes from the layout)."""

import datetime
import json
import os
import shutil
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ROOT, System

FIXTURES = ROOT / "Tests" / "WorkFeedImportTests" / "Fixtures"
# The devices' figures, from the FIT files' session messages (Tests/WorkFeedImportTests/DeviceFiguresTests.swift):
# the Fenix 2 run, 9,008.22 m with a timer time of 2,832 s, from 16:45:08 (+02:00) on Saturday 15 August 2015 to
# 2,833 s later; the Coros ride, 32,145.76 m in 11,287 s of timer time.
RUN = FIXTURES / "fit" / "garmin-fenix2_run_hr_4laps.fit"
RIDE = FIXTURES / "fit" / "coros-pace2_ride_misaligned-fields.fit"
NO_ROUTE = ROOT / "Tests" / "EndToEndTests" / "Fixtures" / "runkeeper_hr-on-waypoint.gpx"


def recent_run(name, start):
    """A run of 60 points with heart rate, starting at `start` (UTC)."""
    points = []
    for i in range(60):
        t = (start + datetime.timedelta(seconds=i * 10)).strftime("%Y-%m-%dT%H:%M:%SZ")
        points.append(f'<trkpt lat="{49.41 + i * 0.0003:.6f}" lon="{8.69 + (i % 5) * 0.0002:.6f}"><ele>{110 + i % 9}</ele><time>{t}</time>'
                      f'<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>{130 + i % 20}</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>')
    return ('<?xml version="1.0"?>\n<gpx version="1.1" creator="workfeed-web-test" xmlns="http://www.topografix.com/GPX/1/1" '
            'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">'
            f'<trk><name>{name}</name><type>running</type><trkseg>{"".join(points)}</trkseg></trk></gpx>\n')


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    files = tmp_path_factory.mktemp("cards")
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    (files / "today.gpx").write_text(recent_run("Just now", now - datetime.timedelta(minutes=15)))
    (files / "yesterday.gpx").write_text(recent_run("A day ago", now - datetime.timedelta(days=1, minutes=15)))
    system = System(workouts=0, extra=[RUN, RIDE, NO_ROUTE, files / "today.gpx", files / "yesterday.gpx"])
    system.start_worker()
    yield system
    system.stop()


def open_browser(width, height, theme, ratio=1):
    """Chromium with a viewport of `width` x `height` CSS pixels at `ratio` device pixels each."""
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--force-device-scale-factor=1"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": theme}]})
    if ratio != 1:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": ratio, "mobile": True})
    return driver


def api(system, path):
    request = urllib.request.Request(system.base + path, headers={"Authorization": "Bearer " + system.token})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def feed(system):
    return api(system, "/v1/feed?limit=100")["items"]


def load(driver, system, count):
    driver.get(system.base + "/#token=" + system.token)
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded") == str(count))


def card(driver, workout_id):
    article = driver.find_element(By.CSS_SELECTOR, f"article[data-id='{workout_id}']")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", article)
    return article


def figures(article):
    return {row.find_element(By.TAG_NAME, "dt").text: row.find_element(By.TAG_NAME, "dd").text
            for row in article.find_elements(By.CSS_SELECTOR, ".figures > div")}


def expected_day(workout):
    """What the page should call the workout's day, by the same rule: its local date against
    today's date at its offset."""
    local = workout["localStart"]
    today = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=workout.get("timeZoneOffset") or 0)).date()
    day = datetime.date.fromisoformat(local[:10])
    if day == today:
        return "Today · " + local[11:16]
    if day == today - datetime.timedelta(days=1):
        return "Yesterday · " + local[11:16]
    return day.strftime("%a ") + str(day.day) + day.strftime(" %b %Y · ") + local[11:16]


def screenshot(driver, name):
    directory = os.environ.get("WORKFEED_WEB_SCREENSHOTS")
    if directory:
        Path(directory).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(directory) / f"{name}.png"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_card_says_it_the_way_runners_expect(cards, theme):
    items = feed(cards)
    assert len(items) == 5
    run = next(w for w in items if w["distance"] == {"unit": "km", "value": 9.00822})
    ride = next(w for w in items if w["activity"] == "cycling")
    bare = next(w for w in items if w["pointCount"] == 0)
    recent = [w for w in items if w.get("name") in ("Just now", "A day ago")]
    driver = open_browser(1280, 1000, theme)
    try:
        load(driver, cards, 5)
        background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
        assert background == ("rgb(13, 15, 18)" if theme == "dark" else "rgb(255, 255, 255)")
        screenshot(driver, f"feed-top-{theme}")

        # Weekday and date in the workout's own zone: 16:45 at +02:00 on Saturday 15 August 2015.
        article = card(driver, run["id"])
        assert article.find_element(By.CSS_SELECTOR, "time.when").text == "Sat 15 Aug 2015 · 16:45"
        # ...and the zone it is in, on the time's tooltip.
        zone = article.find_element(By.CSS_SELECTOR, "time.when").get_attribute("title")
        assert zone == (run["timeZone"] + ", UTC+02:00" if run.get("timeZone") else "UTC+02:00")
        # The device's figures as a runner reads them: 9,008.22 m; 2,832 s moving (5:14 a km); 2,833 s elapsed.
        shown = figures(article)
        assert shown["Distance"] == "9.01 km" and shown["Pace"] == "5:14 /km"
        assert shown["Moving time"] == "0:47:12" and shown["Elapsed time"] == "0:47:13"
        assert shown["Heart rate"] == f"{round(run['heartRateAverage'])} bpm"
        # A ride: speed, 32.14576 km in 11,287 s is 10.25 km/h.
        ride_figures = figures(card(driver, ride["id"]))
        assert ride_figures["Speed"] == "10.3 km/h" and ride_figures["Moving time"] == "3:08:07" and "Pace" not in ride_figures
        # Today and Yesterday for recent ones, by the workout's own date.
        assert len(recent) == 2
        for workout in recent:
            label = card(driver, workout["id"]).find_element(By.CSS_SELECTOR, "time.when").text
            assert label == expected_day(workout) and label.split(" ·")[0] in ("Today", "Yesterday")

        # A workout without a route: a compact card, no picture-sized box.
        compact = card(driver, bare["id"])
        assert "compact" in compact.get_attribute("class")
        assert not compact.find_elements(By.CSS_SELECTOR, ".slot") and compact.rect["height"] < 160
        assert compact.find_element(By.CSS_SELECTOR, "time.when").text == expected_day(bare)
        assert "Distance" not in figures(compact) and figures(compact)["Heart rate"] == f"{round(bare['heartRateAverage'])} bpm"
        screenshot(driver, f"card-compact-{theme}")

        # The route picture of the current theme; a box wider than 512 px loads the @2x picture.
        article = card(driver, run["id"])
        WebDriverWait(driver, 90).until(lambda d: " 1024w" in (article.find_element(By.CSS_SELECTOR, ".slot img").get_attribute("srcset") or ""))
        image = article.find_element(By.CSS_SELECTOR, ".slot img")
        assert image.get_attribute("data-theme") == theme and image.get_attribute("data-kind") == "route"
        assert article.find_element(By.CSS_SELECTOR, ".slot").rect["width"] > 512
        pictures = api(cards, f"/v1/workouts/{run['id']}")["pictures"]
        at = {(p["kind"], p["theme"], p["scale"]): p.get("url") for p in pictures}
        assert image.get_attribute("srcset") == f"{at[('route', theme, 1)]} 512w, {at[('route', theme, 2)]} 1024w"
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
        assert driver.execute_script("return arguments[0].currentSrc", image).endswith(at[("route", theme, 2)])
        screenshot(driver, f"card-desktop-{theme}")

        # The heatmap of a workout with heart rate, a click away, and its pace and elevation (it has
        # times and altitudes); the ride's card has them too, the bare one none.
        buttons = article.find_elements(By.CSS_SELECTOR, ".views button")
        assert [b.text for b in buttons] == ["Route", "Heart rate", "Pace", "Elevation", "Share card", "Story card"]
        assert run["pictureKinds"] == ["route", "heatmap", "pace", "elevation", "share", "story"]
        buttons[1].click()
        WebDriverWait(driver, 90).until(lambda d: article.find_elements(By.CSS_SELECTOR, f".slot img[data-kind='heatmap'][data-theme='{theme}']"))
        heatmap = article.find_element(By.CSS_SELECTOR, ".slot img")
        pictures = api(cards, f"/v1/workouts/{run['id']}")["pictures"]
        url = next(p["url"] for p in pictures if p["kind"] == "heatmap" and p["theme"] == theme and p["scale"] == 1 and p.get("url"))
        assert heatmap.get_attribute("src").endswith(url)
        assert buttons[1].get_attribute("aria-pressed") == "true" and buttons[0].get_attribute("aria-pressed") == "false"
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", heatmap))
        screenshot(driver, f"card-heatmap-{theme}")
        # The pace picture (issue 40): asked for on the click, drawn, shown in the theme.
        buttons[2].click()
        WebDriverWait(driver, 90).until(lambda d: article.find_elements(By.CSS_SELECTOR, f".slot img[data-kind='pace'][data-theme='{theme}']"))
        pace = article.find_element(By.CSS_SELECTOR, ".slot img")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", pace))
        assert buttons[2].get_attribute("aria-pressed") == "true"
        screenshot(driver, f"card-pace-{theme}")
        # The share card (issue 40, part 1): a portrait picture of its own size, in the card's slot.
        buttons[4].click()
        WebDriverWait(driver, 90).until(lambda d: article.find_elements(By.CSS_SELECTOR, f".slot img[data-kind='share'][data-theme='{theme}']"))
        share = article.find_element(By.CSS_SELECTOR, ".slot img")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", share))
        # Portrait, 4:5 (the browser reports the picture it took from srcset at the slot's density).
        assert abs(driver.execute_script("return arguments[0].naturalHeight / arguments[0].naturalWidth", share) - 1.25) < 0.01
        slot = article.find_element(By.CSS_SELECTOR, ".slot").rect
        assert abs(slot["height"] / slot["width"] - 1.25) < 0.02
        screenshot(driver, f"card-share-{theme}")
        buttons[0].click()
        assert article.find_element(By.CSS_SELECTOR, ".slot img").get_attribute("data-kind") == "route"
        assert not compact.find_elements(By.CSS_SELECTOR, ".views")
    finally:
        driver.quit()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_phone_gets_the_1x_picture(cards, theme):
    run = next(w for w in feed(cards) if w["distance"] == {"unit": "km", "value": 9.00822})
    # The pictures are drawn (the test above, or now).
    deadline = time.time() + 90
    while time.time() < deadline:
        pictures = api(cards, f"/v1/workouts/{run['id']}/pictures/route/{theme}?scale=2&wait=10")
        if pictures["picture"].get("url"):
            break
    driver = open_browser(390, 844, theme)
    try:
        load(driver, cards, 5)
        article = card(driver, run["id"])
        WebDriverWait(driver, 90).until(lambda d: " 1024w" in (article.find_element(By.CSS_SELECTOR, ".slot img").get_attribute("srcset") or ""))
        image = article.find_element(By.CSS_SELECTOR, ".slot img")
        assert article.find_element(By.CSS_SELECTOR, ".slot").rect["width"] < 512
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
        one = next(p["url"] for p in api(cards, f"/v1/workouts/{run['id']}")["pictures"]
                   if p["kind"] == "route" and p["theme"] == theme and p["scale"] == 1)
        assert driver.execute_script("return arguments[0].currentSrc", image).endswith(one)
        screenshot(driver, f"card-phone-{theme}")
    finally:
        driver.quit()


def drawn(system, workout, theme):
    """Waits until the workout's route picture is drawn at every scale in `theme`; its URLs by scale."""
    deadline = time.time() + 120
    while time.time() < deadline:
        for scale in (1, 2):
            api(system, f"/v1/workouts/{workout['id']}/pictures/route/{theme}?scale={scale}&wait=10")
        pictures = [p for p in api(system, f"/v1/workouts/{workout['id']}")["pictures"] if p["kind"] == "route" and p["theme"] == theme]
        if pictures and all(p.get("url") for p in pictures):
            return {p["scale"]: p["url"] for p in pictures}
    raise AssertionError(f"the route pictures of {workout['id']} were not drawn")


@pytest.mark.parametrize("width,height,ratio", [(390, 844, 3), (1280, 900, 1)])
def test_the_first_paint_loads_the_picture_that_fits_the_device(cards, width, height, ratio):
    """Every picture is drawn before the page opens, so the cards are drawn once, with their
    pictures, before they are in the document, and nothing draws them again: the picture the
    browser loads is the one its first `sizes` and `srcset` pick. A 3x phone's slot is 356 CSS px,
    1,068 device pixels: the largest picture (@2x, 1,024 px); a 1x desktop's slot is 718 px: @2x."""
    run = next(w for w in feed(cards) if w["distance"] == {"unit": "km", "value": 9.00822})
    urls = drawn(cards, run, "light")
    driver = open_browser(width, height, "light", ratio)
    try:
        load(driver, cards, 5)
        assert driver.execute_script("return [window.innerWidth, window.devicePixelRatio]") == [width, ratio]
        article = card(driver, run["id"])
        image = article.find_element(By.CSS_SELECTOR, ".slot img")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
        # The picture that fits: the smallest at least as wide as the slot in device pixels, else the largest.
        pixels = article.find_element(By.CSS_SELECTOR, ".slot").rect["width"] * ratio
        fitting = min((s for s in urls if 512 * s >= pixels), default=max(urls))
        assert fitting == 2
        assert driver.execute_script("return arguments[0].currentSrc", image).endswith(urls[fitting])
        screenshot(driver, f"card-first-paint-{width}x{height}@{ratio}")
    finally:
        driver.quit()


def test_a_pace_past_an_hour_is_written_in_hours(cards):
    """The page's one pace format: m:ss under an hour, h:mm:ss from an hour on, never "786:16 /mi"."""
    driver = open_browser(1280, 900, "light")
    try:
        load(driver, cards, 5)
        shown = driver.execute_script(
            "return [rate(314.4, 's/km'), rate(3599.4, 's/km'), rate(3599.6, 's/mi'), rate(47176, 's/mi'), rate(10.25, 'km/h')]")
        assert shown == ["5:14 /km", "59:59 /km", "1:00:00 /mi", "13:06:16 /mi", "10.3 km/h"]
    finally:
        driver.quit()


def patch_settings(system, body):
    request = urllib.request.Request(system.base + "/v1/settings", method="PATCH", data=json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + system.token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def test_imperial_units_show_miles_and_feet_as_the_api_gives_them(cards):
    """With `units: imperial` every length comes in miles or feet with its unit named (issue 36):
    the card writes what the API gives, and the summary header too; nothing is converted in the
    page. Metric again afterwards, for the tests that share the system."""
    patch_settings(cards, {"units": "imperial"})
    try:
        items = feed(cards)
        run = next(w for w in items if w["activity"] == "running" and w["distance"]["value"] > 5)
        # 9,008.22 m is 5.597448 mi; the run's climb in feet.
        assert run["distance"] == {"unit": "mi", "value": 5.597448} and run["pace"]["unit"] == "s/mi"
        driver = open_browser(1280, 1000, "light")
        try:
            load(driver, cards, 5)
            shown = figures(card(driver, run["id"]))
            assert shown["Distance"] == "5.60 mi" and shown["Pace"].endswith(" /mi")
            if run.get("elevationGain"):
                assert run["elevationGain"]["unit"] == "ft" and shown["Climb"] == f"+{round(run['elevationGain']['value'])} ft"
            WebDriverWait(driver, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#summary dd")) == 2)
            header = driver.find_element(By.CSS_SELECTOR, "#summary dd[data-period='year']").text
            assert " km" not in header
            screenshot(driver, "feed-imperial-light")
        finally:
            driver.quit()
    finally:
        patch_settings(cards, {"units": None})
