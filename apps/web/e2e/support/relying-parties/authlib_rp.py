"""An app's back end written with Authlib (Debian's python3-authlib), independent of the service.

The code flow with PKCE S256, state and nonce kept server-side; the ID token checked by Authlib
(signature from the provider's JWKS, iss, aud, exp, nonce, at_hash); userinfo; a refresh; and a
back-channel logout receiver that checks the logout token (OpenID Connect Back-Channel Logout 1.0,
section 2.6). It answers the same JSON at GET /state as the Node app (contract.ts).

Settings come from the environment: RP_PORT, RP_ISSUER, RP_CLIENT_ID, RP_CLIENT_SECRET.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

PORT = int(os.environ["RP_PORT"])
ISSUER = os.environ["RP_ISSUER"]
CLIENT_ID = os.environ["RP_CLIENT_ID"]
CLIENT_SECRET = os.environ["RP_CLIENT_SECRET"]
ORIGIN = f"http://127.0.0.1:{PORT}"
REDIRECT_URI = f"{ORIGIN}/callback"
BACKCHANNEL_EVENT = "http://schemas.openid.net/event/backchannel-logout"

META = requests.get(f"{ISSUER}/.well-known/openid-configuration", timeout=10).json()
if META["issuer"] != ISSUER:
    sys.exit(f"discovery names issuer {META['issuer']}, not {ISSUER}")


def keys():
    # Fetched at each check, so a key published since (rotation) is known.
    return JsonWebKey.import_key_set(requests.get(META["jwks_uri"], timeout=10).json())


def session():
    return OAuth2Session(
        CLIENT_ID,
        CLIENT_SECRET,
        scope="openid profile email offline_access",
        redirect_uri=REDIRECT_URI,
        code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic",
    )


lock = threading.Lock()
pending = {}
tokens = {}
state = {"signedIn": None, "refreshed": None, "logouts": [], "refused": []}


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, value=None, content_type="application/json", extra=None):
        body = b"" if value is None else (value if isinstance(value, bytes) else json.dumps(value).encode())
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for name, val in (extra or {}).items():
            self.send_header(name, val)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        sys.stderr.write("authlib-rp: " + (fmt % args) + "\n")

    def do_GET(self):
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if url.path == "/login":
            verifier = generate_token(48)
            nonce = generate_token(20)
            uri, state_value = session().create_authorization_url(
                META["authorization_endpoint"], code_verifier=verifier, nonce=nonce, prompt="consent"
            )
            with lock:
                pending[state_value] = (verifier, nonce)
            self.answer(302, extra={"location": uri})
        elif url.path == "/callback":
            with lock:
                started = pending.pop(query.get("state", ""), None)
            if not started or "code" not in query:
                return self.answer(400, {"error": "unknown state or no code", "query": query})
            verifier, nonce = started
            oauth = session()
            token = oauth.fetch_token(
                META["token_endpoint"], grant_type="authorization_code", code=query["code"], code_verifier=verifier
            )
            claims = jwt.decode(
                token["id_token"],
                keys(),
                claims_cls=CodeIDToken,
                claims_options={"iss": {"essential": True, "value": ISSUER}},
                claims_params={"nonce": nonce, "client_id": CLIENT_ID, "access_token": token["access_token"]},
            )
            claims.validate(leeway=5)
            userinfo = oauth.get(META["userinfo_endpoint"], timeout=10)
            userinfo.raise_for_status()
            with lock:
                tokens.update(token)
                state["signedIn"] = {
                    "idToken": dict(claims),
                    "userinfo": userinfo.json(),
                    "refreshToken": "refresh_token" in token,
                }
            self.answer(200, b"<h1>Signed in to the Python app</h1>", "text/html")
        elif url.path == "/state":
            with lock:
                self.answer(200, state)
        else:
            self.answer(404, {"error": "not found"})

    def do_POST(self):
        url = urlparse(self.path)
        length = int(self.headers.get("content-length") or 0)
        form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
        if url.path == "/refresh":
            with lock:
                before = dict(tokens)
            if "refresh_token" not in before:
                return self.answer(409, {"error": "no refresh token"})
            oauth = session()
            after = oauth.refresh_token(META["token_endpoint"], refresh_token=before["refresh_token"])
            userinfo = oauth.get(META["userinfo_endpoint"], timeout=10)
            userinfo.raise_for_status()
            with lock:
                tokens.clear()
                tokens.update(after)
                state["refreshed"] = {
                    "rotated": bool(after.get("refresh_token")) and after["refresh_token"] != before["refresh_token"],
                    "newAccessToken": after["access_token"] != before["access_token"],
                    "sub": userinfo.json().get("sub"),
                }
                self.answer(200, state["refreshed"])
        elif url.path == "/backchannel":
            try:
                claims = jwt.decode(
                    form.get("logout_token", ""),
                    keys(),
                    claims_options={
                        "iss": {"essential": True, "value": ISSUER},
                        "aud": {"essential": True, "value": CLIENT_ID},
                        "iat": {"essential": True},
                        "jti": {"essential": True},
                        "events": {"essential": True},
                    },
                )
                claims.validate(leeway=5)
                if claims.header.get("typ") != "logout+jwt":
                    raise ValueError(f"typ {claims.header.get('typ')}")
                if BACKCHANNEL_EVENT not in claims["events"] or "nonce" in claims:
                    raise ValueError("not a logout token")
                if "sid" not in claims and "sub" not in claims:
                    raise ValueError("neither sid nor sub")
                if claims["iat"] > time.time() + 5:
                    raise ValueError("issued in the future")
            except Exception as error:  # noqa: BLE001 - any refusal is recorded and answered 400
                with lock:
                    state["refused"].append(repr(error))
                return self.answer(400, {"error": "invalid_request"})
            with lock:
                state["logouts"].append({"sid": claims.get("sid"), "sub": claims.get("sub")})
            self.answer(200)
        else:
            self.answer(404, {"error": "not found"})


server = ThreadingHTTPServer(("127.0.0.1", PORT), Handler)
print(f"ready on {ORIGIN}", flush=True)
server.serve_forever()
