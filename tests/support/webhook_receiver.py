"""A webhook receiver for the tests, run as its own process: it checks each request's Standard
Webhooks signature with the specification's library and records what it got.

    python webhook_receiver.py --port P --secret whsec_... --record FILE [--fail]

Each POST is answered 204 when its signature holds (400 when it does not; 503 always with
``--fail``; never, with ``--hang``) and appended to FILE as one JSON line: the ``webhook-*``
headers, the body, whether the signature held and the status answered (0: none).
``GET /deliveries`` returns the lines as a JSON list.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--record", type=Path, required=True)
    parser.add_argument("--fail", action="store_true")
    parser.add_argument("--hang", action="store_true")
    args = parser.parse_args()
    webhook = Webhook(args.secret)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", "0"))).decode()
            headers = {k.lower(): v for k, v in self.headers.items()}
            try:
                webhook.verify(body, headers)
                valid = True
            except WebhookVerificationError:
                valid = False
            status = 0 if args.hang else 503 if args.fail else 204 if valid else 400
            record: dict[str, Any] = {
                "id": headers.get("webhook-id"),
                "timestamp": headers.get("webhook-timestamp"),
                "signature": headers.get("webhook-signature"),
                "body": body,
                "valid": valid,
                "status": status,
            }
            with lock, args.record.open("a") as out:
                out.write(json.dumps(record) + "\n")
            if args.hang:  # recorded, never answered (the sender times out)
                time.sleep(3600)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_GET(self) -> None:
            with lock:
                text = args.record.read_text() if args.record.exists() else ""
            lines = [json.loads(line) for line in text.splitlines() if line]
            data = json.dumps(lines).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print("listening", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
