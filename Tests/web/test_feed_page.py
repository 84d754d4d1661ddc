"""The feed page in a real browser (Debian's headless Chromium through chromedriver): the first page
shows, scrolling loads the next, pending pictures turn into pictures without a reload, and dark
mode loads the dark pictures."""

import base64
import hashlib
import hmac
import json
import os
import re
import time
import shutil
import urllib.error
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=420,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    yield driver
    driver.quit()


def api(system, path):
    request = urllib.request.Request(system.base + path, headers={"Authorization": "Bearer " + system.token})
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.load(reply)


def slots(driver):
    return driver.find_elements(By.CSS_SELECTOR, ".slot")


def test_placeholders_scroll_pictures_and_dark_mode(system, browser):
    # No worker yet: every picture is pending, so the first page shows placeholders.
    browser.get(system.base + "/#token=" + system.token)
    WebDriverWait(browser, 30).until(lambda d: len(slots(d)) >= 10)
    first = slots(browser)
    assert all(slot.get_attribute("data-status") == "pending" for slot in first[:3])
    # The day in the workout's own zone, with its weekday ("Tue 14 Nov 2023 · 22:13").
    assert re.fullmatch(r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} 2023 · \d\d:\d\d",
                        browser.find_elements(By.CSS_SELECTOR, "article time")[0].text)
    # Placeholders keep the picture's shape (512 x 512 points) and follow the theme.
    box = first[0].rect
    assert abs(box["width"] - box["height"]) <= 2
    loaded = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-loaded"))

    # A worker starts: the visible placeholders become pictures, without a reload.
    system.start_worker()
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".slot img[data-theme='light']"))
    image = browser.find_element(By.CSS_SELECTOR, ".slot img[data-theme='light']")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", image))
    assert image.get_attribute("loading") == "lazy"
    assert image.get_dom_attribute("width") == "512" and image.get_dom_attribute("height") == "512"
    source = image.get_attribute("src")
    assert "/v1/pictures/" in source and source.endswith(".png")
    # srcset offers @2x (1024 pixels wide) once it is drawn too.
    WebDriverWait(browser, 60).until(lambda d: " 1024w" in (d.find_element(By.CSS_SELECTOR, ".slot img").get_attribute("srcset") or ""))

    # Scrolling to the end loads the next pages with the cursor, until every workout is there.
    for _ in range(20):
        browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        try:
            WebDriverWait(browser, 5).until(lambda d: int(d.find_element(By.TAG_NAME, "body").get_attribute("data-loaded")) > loaded)
        except Exception:
            pass
        loaded = int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-loaded"))
        if loaded >= 25:
            break
    assert loaded == 25
    ids = [article.get_attribute("data-id") for article in browser.find_elements(By.CSS_SELECTOR, "article")]
    assert len(ids) == len(set(ids)) == 25

    # Dark mode: the slots in view load the dark pictures, the very ones the API names.
    browser.execute_script("window.scrollTo(0, 0)")
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    WebDriverWait(browser, 60).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".slot img[data-theme='dark']"))
    dark = browser.find_element(By.CSS_SELECTOR, ".slot img[data-theme='dark']")
    workout = dark.find_element(By.XPATH, "./ancestor::article").get_attribute("data-id")
    pictures = api(system, f"/v1/workouts/{workout}")["pictures"]
    expected = next(p["url"] for p in pictures if p["theme"] == "dark" and p["scale"] == 1 and p.get("url"))
    assert dark.get_attribute("src").endswith(expected)
    background = browser.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(13, 15, 18)"
    screenshot = os.environ.get("WORKFEED_WEB_SCREENSHOT")
    if screenshot:
        browser.save_screenshot(screenshot)


def expired_token(system, owner):
    """An HS256 token for `owner` signed with the gateway's secret whose `exp` passed an hour ago
    (beyond the 30 s of clock difference forgiven): what a visitor has after a long break."""
    secret = system.secret.read_bytes().rstrip(b"\r\n")
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    now = int(time.time())
    header = encode(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = encode(json.dumps({"exp": now - 3600, "iat": now - 7200, "sub": owner}, separators=(",", ":")).encode())
    signature = hmac.new(secret, f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{encode(signature)}"


def test_expired_sign_in_says_so(system, browser):
    # The API says why as a code, which the page switches on.
    token = expired_token(system, "web-test-owner")
    request = urllib.request.Request(system.base + "/v1/feed", headers={"Authorization": "Bearer " + token})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
    assert json.load(refused.value)["reason"] == "expired"

    browser.get("about:blank")
    browser.get(system.base + "/#token=" + token)
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "status").get_attribute("data-reason") == "expired")
    text = browser.find_element(By.ID, "status").text
    assert "sign-in has expired" in text and "Sign in again" in text
    assert "workctl" not in browser.find_element(By.TAG_NAME, "body").text

    # No token at all: not signed in, and no operator command either.
    browser.get("about:blank")
    browser.get(system.base + "/")
    WebDriverWait(browser, 30).until(lambda d: d.find_element(By.ID, "status").get_attribute("data-reason") == "missing")
    assert "not signed in" in browser.find_element(By.ID, "status").text
    assert "workctl" not in browser.find_element(By.TAG_NAME, "body").text


def test_summary_header_shows_this_week_and_this_year(system, browser):
    """The header's two rows are the last bucket of the week and year summaries the API gives
    (the owner's current week and year in their calendar), per activity."""
    # From another page: a test before may have left the browser on "/" (a new fragment alone
    # would not load the page again).
    browser.get("about:blank")
    browser.get(system.base + "/#token=" + system.token)
    WebDriverWait(browser, 30).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#summary dd")) == 2)
    for period in ("week", "year"):
        report = api(system, "/v1/summaries?period=" + period)
        bucket = report["buckets"][-1]
        row = browser.find_element(By.CSS_SELECTOR, f"#summary dd[data-period='{period}']")
        assert int(row.get_attribute("data-count")) == bucket["total"]["count"]
        if bucket["total"]["count"] == 0:
            assert row.text == "No workouts"
        else:
            for activity in bucket["activities"]:
                assert activity.capitalize() in row.text
    # The imported runs are from November 2023: their year's bucket counts them all.
    year = api(system, "/v1/summaries?period=year&from=2023-01-01&to=2023-12-31")
    feed = api(system, "/v1/feed?limit=100")
    assert year["buckets"][0]["total"]["count"] == len([w for w in feed["items"] if w["localStart"].startswith("2023")])
