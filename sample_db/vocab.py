"""The invented world of the sample memory: people, organisations, projects, APIs, phrasing.

Every name and sentence here was made up for the sample; none is copied from anywhere.
The generator draws from these tables with a fixed seed, so editing them changes the sample.
"""

from __future__ import annotations

# Our side: the developer's colleagues at Tidewell, the (invented) company the agent works for.
INTERNAL = [
    "Tomás Ferreira",
    "Aiko Tanaka",
    "Priya Raman",
    "Jonas Weber",
    "Lena Kowalski",
    "Omar Haddad",
    "Chloé Martin",
    "Daniel Okafor",
    "Mateo García",
    "Ravi Menon",
    "Inês Duarte",
    "Arjun Shah",
    "Mei Chen",
    "Ben Carter",
    "Zoe Adams",
]

# Clients, partners and vendors, each with the people the agent meets there.
ORGS: dict[str, list[str]] = {
    "Cliente Alfa": ["Maria Silva", "Pedro Alves", "Ana Costa", "Bruno Lima"],
    "Banco Tessera": ["Sofia Rossi", "Lucas Moreau", "Julia Nowak"],
    "Orla Logistics": ["Kofi Mensah", "Erik Johansson", "Leila Karimi"],
    "Quillfield Health": ["Grace Liu", "Sam O'Neill", "Nadia Petrova"],
    "Kestrel Telecom": ["Yusuf Demir", "Eva Novak"],
    "Paylane": ["Felix Braun"],
    "Cloudnest": ["Hannah Lind"],
}

APIS: dict[str, int] = {  # name -> version at the start of the sample
    "Payments API": 2,
    "Ledger API": 1,
    "Search API": 1,
    "Auth Service": 3,
    "Notifications API": 1,
    "Billing API": 2,
    "Inventory API": 1,
    "Reports API": 1,
    "Geo API": 2,
    "Webhooks API": 1,
}

# name -> (team, client orgs, vendor orgs, apis, first active day, last active day)
PROJECTS: dict[str, tuple[list[str], list[str], list[str], list[str], int, int]] = {
    "Project Heron": (
        ["Priya Raman", "Aiko Tanaka", "Ben Carter", "Zoe Adams"],
        ["Banco Tessera"],
        ["Paylane"],
        ["Auth Service", "Payments API", "Notifications API"],
        0,
        730,
    ),
    "Atlas migration": (
        ["Jonas Weber", "Omar Haddad", "Mei Chen"],
        [],
        ["Cloudnest"],
        ["Ledger API", "Reports API"],
        40,
        520,
    ),
    "Beacon dashboard": (
        ["Lena Kowalski", "Chloé Martin", "Arjun Shah"],
        ["Orla Logistics"],
        [],
        ["Geo API", "Inventory API", "Reports API"],
        90,
        730,
    ),
    "Juniper billing": (
        ["Tomás Ferreira", "Daniel Okafor", "Inês Duarte"],
        ["Cliente Alfa"],
        ["Paylane"],
        ["Billing API", "Payments API", "Webhooks API"],
        0,
        730,
    ),
    "Kite onboarding": (
        ["Mateo García", "Ravi Menon", "Zoe Adams"],
        ["Quillfield Health"],
        [],
        ["Auth Service", "Notifications API"],
        240,
        730,
    ),
    "Orca search": (
        ["Ravi Menon", "Mei Chen", "Arjun Shah"],
        [],
        ["Cloudnest"],
        ["Search API", "Inventory API"],
        380,
        730,
    ),
    "Nimbus infra": (
        ["Omar Haddad", "Daniel Okafor", "Jonas Weber"],
        [],
        ["Cloudnest"],
        ["Webhooks API", "Search API", "Auth Service"],
        0,
        730,
    ),
    "Falcon pilot": (
        ["Chloé Martin", "Ben Carter"],
        ["Kestrel Telecom"],
        [],
        ["Notifications API", "Geo API"],
        420,
        640,
    ),
}

ROLES = [
    "tech lead",
    "product manager",
    "engineering manager",
    "designer",
    "QA lead",
    "backend engineer",
    "mobile engineer",
    "data engineer",
    "site reliability engineer",
    "security reviewer",
]

STATUSES = [
    "in discovery",
    "in design",
    "in build",
    "in private beta",
    "in public beta",
    "live",
    "in maintenance mode",
]

MILESTONES = ["beta", "GA", "security review", "data freeze", "pilot", "handover"]

DELAY_REASONS = [
    "the vendor sandbox was down for a week",
    "the security review found two blocking issues",
    "the client asked for an extra approval round",
    "QA found a regression in the refund path",
    "two engineers were pulled into an incident",
    "the data export arrived late",
    "the scope grew to include audit logs",
    "legal wanted another look at the data processing terms",
]

CHANNELS = ["email", "the shared Slack channel", "a phone call", "the ticket portal", "Teams"]

INFRA = [
    "the Cloudnest eu-west cluster",
    "a single Cloudnest VM",
    "the shared Kubernetes staging cluster",
    "ephemeral preview environments",
    "the old bare-metal box in the office",
]

RATE_LIMITS = [120, 300, 600, 900, 1200, 2400]

# (thing, choice, reason): decisions and why, as the agent would note them.
DECISIONS = [
    ("the mobile auth flow", "PKCE", "the app cannot keep a client secret"),
    ("the ledger datastore", "PostgreSQL", "postings need serializable transactions"),
    ("background jobs", "a Postgres-backed queue", "job volume is low and we avoid a broker"),
    ("the search index", "OpenSearch", "the ops team already runs it for logs"),
    ("feature flags", "a config table with a 30 s cache", "a flag service was overkill"),
    ("webhook delivery", "at-least-once with idempotency keys", "clients retry anyway"),
    ("money amounts", "integer minor units", "floats lost cents in the old system"),
    ("API errors", "RFC 7807 problem documents", "clients can parse one shape"),
    ("the dashboard charts", "server-rendered SVG", "the client blocks most JS CDNs"),
    ("session storage", "signed cookies", "we wanted no server-side session table"),
    ("timezones", "UTC everywhere with local display", "DST bugs bit us twice"),
    ("the data pipeline", "nightly batch", "nobody needs fresher than a day"),
    ("mobile push", "the Notifications API", "it already handles per-user opt-outs"),
    ("schema migrations", "expand-and-contract", "we deploy without downtime"),
    ("secrets", "the Cloudnest secret store", "env files leaked once in a screenshot"),
    ("pagination", "cursor pagination", "offsets broke under concurrent inserts"),
    ("load testing", "a weekly k6 run", "regressions slipped through twice"),
    ("the geocoder cache", "a 7-day TTL", "addresses rarely change"),
    ("release cadence", "every second Tuesday", "the client wants predictable windows"),
    ("logging", "structured JSON logs", "grepping free text did not scale"),
    ("the report exports", "CSV with a BOM", "the client opens everything in Excel"),
    ("retries", "exponential backoff capped at 5 tries", "Paylane throttles bursts"),
    ("access control", "role-based scopes", "the client has four staff roles"),
    ("the onboarding form", "a multi-step wizard", "drop-off fell in the usability test"),
    ("API versioning", "a version in the URL path", "proxies strip custom headers"),
    ("test data", "synthetic fixtures only", "production data cannot leave the client"),
]

TASKS = [
    "rotate the Paylane API keys",
    "write the runbook for ledger reconciliation",
    "fix the flaky refund test",
    "upgrade the Postgres minor version",
    "add audit logging to admin actions",
    "draft the data processing agreement annex",
    "move the cron jobs to the queue",
    "review the accessibility report",
    "clean up unused feature flags",
    "document the webhook retry policy",
    "set up alerting on p95 latency",
    "migrate the old invoices",
    "prepare the quarterly demo",
    "triage the backlog of support tickets",
    "benchmark the search ranking change",
    "renew the TLS certificates",
]

INCIDENT_CAUSES = [
    "a certificate expired",
    "a config push disabled the connection pool",
    "a migration locked the invoices table",
    "the vendor rotated an IP range without notice",
    "a retry storm from one client",
    "the disk filled up with debug logs",
    "a DNS change propagated slowly",
    "a cache stampede after a deploy",
]

API_TRAITS = [
    "uses OAuth client credentials for service-to-service calls",
    "paginates with opaque cursors",
    "returns timestamps in UTC with a trailing Z",
    "rejects requests without an Idempotency-Key header",
    "has a sandbox that resets every Sunday night",
    "sends webhooks signed with HMAC-SHA256",
    "caps request bodies at 1 MB",
    "needs the X-Tenant header on every call",
]

PREFERENCES = [
    ("written summaries", "long calls", "status updates"),
    ("async reviews", "review meetings", "design changes"),
    ("short daily check-ins", "weekly reports", "incident follow-ups"),
    ("diagrams", "prose", "architecture questions"),
    ("morning meetings", "afternoon slots", "planning"),
]

RISKS = [
    "the single point of failure in the queue worker",
    "the vendor's deprecation notice for v1 endpoints",
    "key-person dependency on one engineer",
    "missing load tests before launch",
    "unclear data retention rules",
    "the holiday freeze overlapping the release",
]

FEATURES = [
    "CSV export of transactions",
    "single sign-on with their identity provider",
    "a dark mode",
    "per-depot filters",
    "SMS reminders",
    "bulk invoice download",
    "an audit trail view",
    "Portuguese translations",
]

AGREEMENTS = [
    "keep PRs under 400 lines",
    "demo every second Friday",
    "freeze merges the day before a release",
    "pair on every migration",
    "write an ADR for every new dependency",
    "rotate the on-call every Monday",
]

METRICS = ["p95 latency", "error rate", "weekly active users", "test coverage", "build time"]

AI_MODELS = ["quill-large-2025-02", "quill-large-2025-09", "quill-mini-2026-04"]
AI_AGENTS = ["synapse-scribe/1.3", "synapse-scribe/1.4", "synapse-scribe/2.0"]

# A few facts whose text holds literal markup or an escape: the UI must show them as data.
MARKUP_FACTS = [
    ("the CI summary prints [red]FAILED[/red] for test_refund_race", ["Juniper billing"]),
    (
        "the runbook link is written as [link=https://example.com/runbook]runbook[/link] in the wiki",
        ["Nimbus infra"],
    ),
    (
        "the status page banner said [bold]Degraded[/bold] during the Ledger API maintenance",
        ["Ledger API"],
    ),
    (
        "Grace Liu's email subject was literally [urgent] [b]read me[/b]",
        ["Grace Liu", "Quillfield Health"],
    ),
    (
        "the deploy bot posts [green]OK[/green] even when the smoke test was skipped",
        ["Nimbus infra"],
    ),
    ("the old CLI prints \x1b[31merror\x1b[0m codes raw into the log file", ["Atlas migration"]),
]
