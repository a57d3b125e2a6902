"""``arena serve``: the site folder on localhost, with the headers CloudFront sends.

A page's own ``<meta>`` CSP covers any host; the server adds the header form (which also
carries ``frame-ancestors``, which a ``<meta>`` tag cannot), ``nosniff``, a frame refusal and
the referrer policy, as the deployed distribution does (HSTS is for HTTPS only).
"""

from __future__ import annotations

import http.server

from arena_core.constants import CONTENT_SECURITY_POLICY

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
}


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """A static file handler that sends the site's security headers with every response."""

    def end_headers(self) -> None:
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        super().end_headers()
