"""A second, blind set for the issue-22 families (tests/fixtures/secrets_blind): written
after the rules for ``make_fresh_families`` were tuned and measured once, never tuned on.
Other placements and formats of the same families: compose files, CI workflows, Kubernetes
Secrets, HTTP logs, Go/Ruby/JS code, INI and TOML, Markdown prose.

    python scripts/fresh_families_blind.py    # rewrites tests/fixtures/secrets_blind
"""

from __future__ import annotations

import base64
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts.make_fresh_families import (
    _B62,
    _DJANGO,
    _HEX,
    _LOWNUM,
    _URLSAFE,
    BLIND,
    Row,
    b64_of,
    chars,
    ksuid,
    passphrase,
    pem_b64,
    punct_key,
    push_id,
    ulid,
    uuid4,
    write,
)


def _snowflake(rng: random.Random) -> str:
    return str(rng.randint(10**17, 10**19))


def _b64_png_lines(rng: random.Random) -> str:
    body = base64.b64encode(b"\x89PNG\r\n\x1a\n" + rng.randbytes(300)).decode()
    return "\n".join(body[i : i + 76] for i in range(0, len(body), 76))


BLIND_SECRETS: list[Row] = [
    (
        "cookie",
        "httpie-session",
        chars(_LOWNUM, 40),
        (
            "http :8000/api/orders Cookie:session={v}",
            '$ curl -v -b "_session_id={v}" http://localhost:3000/admin\n> GET /admin HTTP/1.1',
        ),
    ),
    (
        "cookie",
        "go-cookie",
        chars(_URLSAFE, 43),
        (
            'req.AddCookie(&http.Cookie{{Name: "auth_session", Value: "{v}"}})',
            "curl 'https://app.example.com/graphql' -H 'cookie: remember_token={v}; locale=en'",
        ),
    ),
    (
        "cookie",
        "laravel-session",
        b64_of(b"", 180),
        (
            "curl -b 'laravel_session={v}' https://shop.example.com/checkout",
            "Cookie: XSRF-TOKEN=abc; laravel_session={v}",
        ),
    ),
    (
        "framework",
        "rails-master-key",
        chars(_HEX, 32),
        (
            "RAILS_MASTER_KEY={v}",
            "echo {v} > config/master.key  # RAILS_MASTER_KEY",
        ),
    ),
    (
        "framework",
        "django-compose",
        chars(_DJANGO, 50),
        (
            'services:\n  web:\n    environment:\n      DJANGO_SECRET_KEY: "{v}"\n',
            "- name: Run tests\n  env:\n    SECRET_KEY: '{v}'\n",
        ),
    ),
    (
        "framework",
        "jwt-secret",
        chars(_B62 + "!@#$%", 40),
        (
            "JWT_SECRET={v}",
            'const token = jwt.sign(payload, "{v}");',
        ),
    ),
    (
        "framework",
        "laravel-key-env-file",
        lambda r: "base64:" + b64_of(b"", 32)(r),
        ("$ cat .env | grep KEY\nAPP_KEY={v}\nPUSHER_APP_KEY=\n",),
    ),
    (
        "framework",
        "cookie-secret-go",
        chars(_B62, 64),
        (
            'store := sessions.NewCookieStore([]byte("{v}"))  // SESSION_KEY',
            'cookie_secret = "{v}"',
        ),
    ),
    (
        "passphrase",
        "p12-passphrase",
        passphrase,
        (
            'CERT_PASSPHRASE="{v}"',
            '[tls]\nkey_passphrase = "{v}"\n',
        ),
    ),
    (
        "passphrase",
        "duplicity",
        passphrase,
        (
            'PASSPHRASE="{v}" duplicity /home file:///backup',
            "export PASSPHRASE='{v}'",
        ),
    ),
    (
        "passphrase",
        "wallet-passphrase-yaml",
        passphrase,
        (
            "wallet:\n  passphrase: {v}\n",
            "WALLET_PASSPHRASE={v}\n",
        ),
    ),
    (
        "npmrc",
        "npmrc-in-ci",
        uuid4,
        (
            'run: echo "//registry.npmjs.org/:_authToken={v}" > ~/.npmrc',
            "npm config set //registry.npmjs.org/:_authToken {v}",
        ),
    ),
    (
        "npmrc",
        "npmrc-gitlab",
        chars(_URLSAFE, 20),
        ("//gitlab.example.com/api/v4/projects/42/packages/npm/:_authToken={v}",),
    ),
    ("kube", "kube-json-key", pem_b64("PRIVATE KEY", 1200), ('"client-key-data": "{v}",',)),
    (
        "kube",
        "kube-oidc",
        chars(_URLSAFE, 60),
        (
            "    auth-provider:\n      config:\n        refresh-token: {v}\n",
            "      client-secret: {v}\n",
        ),
    ),
    (
        "kube",
        "k8s-secret-stringdata",
        chars(_B62, 32),
        ("kind: Secret\nstringData:\n  api-token: {v}\n",),
    ),
    (
        "punct",
        "ini-punct",
        punct_key,
        (
            "[database]\npassword = {v}\n",
            "[api]\nsecret_key = {v}\n",
        ),
    ),
    (
        "punct",
        "go-punct",
        punct_key,
        (
            'const apiSecret = "{v}"',
            "cfg.Password = `{v}`",
        ),
    ),
    (
        "punct",
        "compose-punct",
        punct_key,
        (
            "    environment:\n      - POSTGRES_PASSWORD={v}\n",
            '      MYSQL_PASSWORD: "{v}"\n',
        ),
    ),
]

BLIND_NEGATIVES: list[Row] = [
    (
        "cookie_neg",
        "cookie-settings",
        lambda r: r.choice(["Lax", "Strict", "None"]),
        (
            'SESSION_COOKIE_SAMESITE = "{v}"\nSESSION_COOKIE_SECURE = True',
            "curl -b 'consent=yes; currency=EUR' https://example.com/{v}",
        ),
    ),
    (
        "cookie_neg",
        "cookie-ga",
        lambda r: f"GA1.2.{r.randint(10**8, 10**9)}.{r.randint(10**9, 2 * 10**9)}",
        ("Cookie: _ga={v}; _gid=GA1.2.99.17",),
    ),
    (
        "framework_neg",
        "secret-key-settings",
        lambda r: r.choice(["settings", "config"]),
        (
            "SECRET_KEY_FALLBACKS = []\n# rotate via {v}",
            "config.secret_key_base = Rails.application.credentials.secret_key_base",
            "APP_KEY=\nAPP_DEBUG=true",
        ),
    ),
    (
        "passphrase_neg",
        "passphrase-flags",
        lambda r: r.choice(["0", "3"]),
        (
            "gpg --pinentry-mode loopback --passphrase-fd {v} --sign notes.txt",
            'ssh-keygen -t ed25519 -N "" -f id_{v}',
        ),
    ),
    (
        "uuid_neg",
        "uuid-logs",
        uuid4,
        (
            "2026-11-20T10:00:01Z INFO job_id={v} status=done",
            "correlationId: {v}",
            "DELETE /v2/webhooks/{v} 204",
        ),
    ),
    (
        "public_id",
        "ids-mixed",
        ksuid,
        (
            "segment anonymousId {v}",
            "| {v} | pending | 2026-11-20 |",
        ),
    ),
    (
        "public_id",
        "push-and-ulid",
        push_id,
        (
            'ref.child("{v}").remove()',
            "chat/{v}/messages",
        ),
    ),
    ("public_id", "ulid-csv", ulid, ("id,name\n{v},alice\n",)),
    (
        "public_id",
        "snowflake-and-video",
        _snowflake,
        (
            "discord user id {v}",
            "tweet https://x.com/user/status/{v}",
        ),
    ),
    (
        "public_id",
        "nanoid-url",
        chars(_URLSAFE, 21),
        (
            "https://share.example.com/s/{v}",
            "file id: {v}",
        ),
    ),
    (
        "base64_neg",
        "png-wrapped-lines",
        _b64_png_lines,
        ("Content-Type: image/png\nContent-Transfer-Encoding: base64\n\n{v}\n",),
    ),
    (
        "base64_neg",
        "b64-yaml-config",
        lambda r: base64.b64encode(
            f"log_level: info\nworkers: {r.randint(2, 16)}\nregion: eu-west-1\n".encode()
        ).decode(),
        ("data:\n  app.yaml: {v}\n",),
    ),
    (
        "coordinate",
        "gradle-and-sbt",
        lambda r: f"com.squareup.okhttp3:okhttp:4.{r.randint(1, 12)}.0",
        (
            "testImplementation 'org.junit.jupiter:junit-jupiter:5.10.1'\nimplementation '{v}'",
            'libraryDependencies += "org.typelevel" %% "cats-core" % "2.10.0" // {v}',
        ),
    ),
    (
        "coordinate",
        "nuget-and-gem",
        lambda r: f"Newtonsoft.Json:13.0.{r.randint(1, 3)}",
        (
            '<PackageReference Include="Serilog" Version="3.1.1" /> <!-- {v} -->',
            "gem 'rails', '~> 7.1.2' # {v}",
        ),
    ),
]


def main() -> int:
    write(BLIND, BLIND_SECRETS, BLIND_NEGATIVES, blind=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
