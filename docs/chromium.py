"""Headless Chromium driven from Python's standard library: open a page, measure it, photograph it.

Used by docs/readme_pictures.py (the README's explain-table picture) and by the tests that check
MathML is typeset by a real browser. It speaks the DevTools protocol over a pipe
(`--remote-debugging-pipe`: JSON messages, each ended by a NUL byte, on file descriptors 3 and 4),
so it needs no websocket library and no network. Needs the `chromium` program (Debian: apt-get
install chromium); `find()` says whether there is one.
Usage: with Browser() as b: b.open(url, offline=True); b.evaluate("1 + 1"); b.screenshot(clip)
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find() -> str | None:
    """The path of a Chromium (or Chrome) program on PATH, or None."""
    return next((path for name in NAMES if (path := shutil.which(name))), None)


class Browser:
    """One headless Chromium with one page; a context manager that closes it."""

    def __init__(
        self, width: int = 1200, height: int = 800, scale: float = 1.0, flags: tuple = ()
    ) -> None:
        program = find()
        if program is None:
            raise RuntimeError("no chromium program on PATH: apt-get install chromium")
        self._profile = tempfile.mkdtemp(prefix="tapegrad-chromium-")
        to_child, self._send = os.pipe()
        self._receive, from_child = os.pipe()
        # the child's ends moved above 4 first, so that putting them on 3 and 4 clobbers neither
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child, from_child)]
        for fd in (to_child, from_child):
            os.close(fd)

        def wire() -> None:  # in the child: the protocol's pipes on descriptors 3 and 4
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        args = ["--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run"]
        args += ["--hide-scrollbars", "--mute-audio", f"--user-data-dir={self._profile}", *flags]
        args.append("--disable-dev-shm-usage")  # (a container's small /dev/shm crashes it)
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")  # (Chromium refuses to run as root with its sandbox)
        self._process = subprocess.Popen(
            [program, *args, "about:blank"],
            preexec_fn=wire,
            pass_fds=(3, 4),  # (kept open in the child: subprocess closes the others)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for fd in high:
            os.close(fd)
        self._buffer, self._next_id, self.events = b"", 0, []
        target = self._call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self._call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self._call("Page.enable", session=True)
        self._call("Network.enable", session=True)
        self.resize(width, height, scale)

    # ---- the page ----------------------------------------------------------------------------
    def resize(self, width: int, height: int, scale: float = 1.0) -> None:
        """The viewport's size in CSS pixels, and device pixels per CSS pixel."""
        self._call(
            "Emulation.setDeviceMetricsOverride",
            session=True,
            width=width,
            height=height,
            deviceScaleFactor=scale,
            mobile=False,
        )

    def open(self, url: str, offline: bool = False, timeout: float = 60.0) -> None:
        """Load `url` and wait for its load event (and its fonts); `offline`: no network at all."""
        self._call(
            "Network.emulateNetworkConditions",
            session=True,
            offline=offline,
            latency=0,
            downloadThroughput=-1,
            uploadThroughput=-1,
        )
        self.events.clear()
        self._call("Page.navigate", session=True, url=url)
        self._wait_for("Page.loadEventFired", timeout)
        self.evaluate("document.fonts.ready.then(() => true)")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        reply = self._call(
            "Runtime.evaluate",
            session=True,
            expression=expression,
            returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in reply:
            raise RuntimeError(f"JavaScript failed: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def screenshot(self, clip: dict | None = None) -> bytes:
        """A PNG of the page, or of `clip` ({x, y, width, height} in CSS pixels) at the scale."""
        params: dict = {"format": "png", "captureBeyondViewport": True}
        if clip is not None:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(
            self._call("Page.captureScreenshot", session=True, **params)["data"]
        )

    def failed_requests(self) -> list:
        """The URLs the page asked for that did not load (offline: every remote one)."""
        urls = {
            e["params"]["requestId"]: e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        }
        return [
            urls.get(e["params"]["requestId"], "?")
            for e in self.events
            if e.get("method") == "Network.loadingFailed"
        ]

    def close(self) -> None:
        """Close the browser (and remove its temporary profile)."""
        try:
            self._call("Browser.close", timeout=10)
        except (RuntimeError, OSError):
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._send, self._receive):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- the protocol --------------------------------------------------------------------------
    def _call(
        self, method: str, session: bool = False, timeout: float = 60.0, **params: Any
    ) -> dict:
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        reply = self._wait_for(self._next_id, timeout)
        if "error" in reply:
            raise RuntimeError(f"{method} failed: {reply['error']}")
        return reply.get("result", {})

    def _wait_for(self, what: int | str, timeout: float) -> dict:
        """The reply with id `what`, or the next event named `what`; events are kept."""
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message = json.loads(raw)
                if "id" in message:
                    if message["id"] == what:
                        return message
                    continue
                self.events.append(message)
                if message.get("method") == what:
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._receive], [], [], left)[0]:
                raise RuntimeError(f"chromium did not answer {what!r} within {timeout:g} s")
            chunk = os.read(self._receive, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe (it crashed or could not start)")
            self._buffer += chunk
