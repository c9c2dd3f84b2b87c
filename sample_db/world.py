"""The simulated world behind the sample: notes on a calendar and the facts each note writes.

Notes (meetings, threads, documents) happen on a calendar per project; each note writes a few
facts about the entities in the room. "Slots" (an API's version, a deadline, who is the focal
contact) are superseded when a later note changes them, which is where chains come from.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import vocab as V

END = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
START = END - timedelta(days=730)
MAX_UPDATES = {"status": 3, "apiver": 2, "deadline": 2}
MIN_GAP_DAYS = {"apiver": 150, "status": 60, "deadline": 21, "renewal": 120}


def ts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def day(t: datetime) -> str:
    return t.strftime("%Y-%m-%d")


def slug(name: str) -> str:
    words = name.lower().replace("project ", "").split()
    return "-".join(w for w in words if w.isalnum())


@dataclass
class Note:
    id: str
    kind: str
    at: datetime
    project: str
    people: list[str]
    orgs: list[str]
    apis: list[str]
    session: str
    wiki: bool = False


@dataclass
class Draft:
    text: str
    created: datetime
    note: Note
    tier: str = "auto"
    slot: tuple | None = None
    supersedes: Draft | None = None
    superseded_at: datetime | None = None
    alts: list[str] = field(default_factory=list)
    story: str = ""
    r: int = 0
    s: int = 0
    events: list[datetime] = field(default_factory=list)
    restated: bool = False
    id: str = ""


class World:
    """The simulation: notes on a calendar, facts per note, slots that get superseded."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: list[Note] = []
        self.drafts: list[Draft] = []
        self.slots: dict[tuple, tuple[object, Draft, int]] = {}  # value, head, updates
        self.used_decisions: set[tuple[str, int]] = set()
        self.note_ids: set[str] = set()
        self.told: set[tuple] = set()

    # -- calendar ---------------------------------------------------------------------
    def when(self, day_offset: float) -> datetime:
        t = START + timedelta(days=int(day_offset))
        while t.weekday() >= 5:
            t += timedelta(days=1)
        t = t.replace(hour=self.rng.randint(8, 17), minute=self.rng.randrange(0, 60, 5))
        return min(t, END - timedelta(hours=2))

    def schedule(self) -> list[tuple[datetime, str, str]]:
        rng = self.rng
        plan = []
        every = {
            "standup": 18,
            "planning": 32,
            "design-review": 50,
            "client-call": 34,
            "vendor-thread": 70,
            "release-notes": 60,
            "adr": 80,
        }
        for proj, (_team, clients, vendors, _apis, first, last) in V.PROJECTS.items():
            for kind, gap in every.items():
                if kind == "client-call" and not clients:
                    continue
                if kind == "vendor-thread" and not vendors:
                    continue
                d = first + rng.uniform(0, gap)
                while d < last:
                    plan.append((self.when(d), kind, proj))
                    d += gap * rng.uniform(0.6, 1.4)
            for _ in range(int((last - first) / 110)):
                plan.append((self.when(rng.uniform(first, last)), "incident-review", proj))
        for _ in range(50):
            d = rng.uniform(0, 729)
            active = [p for p, v in V.PROJECTS.items() if v[4] <= d <= v[5]]
            plan.append((self.when(d), "one-on-one", rng.choice(active)))
        for _ in range(75):
            d = rng.uniform(0, 430)
            active = [p for p, v in V.PROJECTS.items() if v[4] <= d <= v[5]]
            plan.append((self.when(d), "wiki", rng.choice(active)))
        plan.sort()
        return plan

    def make_note(self, at: datetime, kind: str, proj: str) -> Note:
        rng = self.rng
        team, clients, vendors, apis, *_ = V.PROJECTS[proj]
        people = rng.sample(team, min(len(team), rng.randint(2, 3)))
        orgs: list[str] = []
        if kind == "client-call" and clients:
            orgs = [rng.choice(clients)]
        elif kind == "vendor-thread":
            orgs = [rng.choice(vendors)]
        elif clients and (kind == "wiki" or rng.random() < 0.25):
            orgs = [clients[0]]
        for org in orgs:
            people += rng.sample(V.ORGS[org], min(len(V.ORGS[org]), rng.randint(1, 2)))
        if kind == "one-on-one":
            people = rng.sample(team, 1) + [rng.choice([p for p in V.INTERNAL if p not in team])]
        used = rng.sample(apis, rng.randint(1, len(apis)))
        label = {"wiki": "wiki-" + rng.choice(["runbook", "overview", "faq", "contacts"])}.get(kind, kind)
        base = f"note-{day(at)}-{slug(proj)}-{label}"
        nid, i = base, 2
        while nid in self.note_ids:
            nid, i = f"{base}-{i}", i + 1
        self.note_ids.add(nid)
        session = "sess-" + hashlib.sha256(nid.encode()).hexdigest()[:12]
        note = Note(nid, kind, at, proj, people, orgs, used, session, wiki=kind == "wiki")
        self.notes.append(note)
        return note

    # -- facts ------------------------------------------------------------------------
    def run(self) -> None:
        rng = self.rng
        for at, kind, proj in self.schedule():
            note = self.make_note(at, kind, proj)
            menu = MENUS[kind]
            n_facts = rng.randint(3, 9) if kind != "one-on-one" else rng.randint(2, 4)
            t = at
            made = 0
            for _ in range(n_facts * 8):
                if made >= n_facts:
                    break
                fn = rng.choices(list(menu), weights=list(menu.values()))[0]
                t = t + timedelta(minutes=rng.randint(0, 3))
                d = fn(self, note, t)
                if d is None:
                    continue
                made += 1
                if rng.random() < 0.025 and d.alts:  # the agent wrote it twice
                    t = t + timedelta(minutes=rng.randint(1, 4))
                    text = d.text if rng.random() < 0.3 else rng.choice(d.alts)
                    self.add(text, t, note, story="duplicate")

    def once(self, *key: object) -> bool:
        """True the first time a fact is told; later tellings are mostly recalled, not rewritten."""
        if key in self.told:
            return self.rng.random() < 0.04
        self.told.add(key)
        return True

    def add(self, text: str, t: datetime, note: Note, **kw) -> Draft:
        d = Draft(text=text, created=t, note=note, **kw)
        self.drafts.append(d)
        return d

    def phrased(self, variants: list[str], t: datetime, note: Note, **kw) -> Draft:
        i = self.rng.randrange(len(variants))
        alts = variants[:i] + variants[i + 1 :]
        return self.add(variants[i], t, note, alts=alts, **kw)

    def slot_fact(self, key: tuple, note: Note, t: datetime, initial, update) -> Draft | None:
        """`initial(value=None)` -> (value, variants); `update(old)` -> (value, variants)."""
        rng = self.rng
        if key not in self.slots:
            value, variants = initial()
            d = self.phrased(variants, t, note, slot=key)
            self.slots[key] = (value, d, 0)
            return d
        value, head, n = self.slots[key]
        age = (t - head.created).days
        if (
            n < MAX_UPDATES.get(key[0], 1)
            and age >= MIN_GAP_DAYS.get(key[0], 45)
            and rng.random() < 0.5 * 0.45**n
        ):
            new, variants = update(value)
            if new is None or new == value:
                return None
            d = self.phrased(variants, t, note, slot=key, supersedes=head)
            head.superseded_at = t
            self.slots[key] = (new, d, n + 1)
            return d
        if rng.random() < 0.03 and head.alts and not head.restated:
            head.restated = True  # restated once in a later note instead of recalled
            return self.add(rng.choice(head.alts + [head.text]), t, note, story="duplicate")
        return None


# -- fact kinds: each returns a Draft or None (the note then tries another kind) --------


def k_role(w: World, n: Note, t: datetime) -> Draft | None:
    team = V.PROJECTS[n.project][0]
    p = w.rng.choice(team)
    proj = n.project

    def initial():
        role = w.rng.choice(V.ROLES)
        return role, [
            f"{p} is the {role} on {proj}",
            f"{p} works as {role} on {proj}",
            f"on {proj}, {p} is the {role}",
        ]

    def update(old):
        role = w.rng.choice([r for r in V.ROLES if r != old])
        return role, [
            f"{p} is now the {role} on {proj}",
            f"{p} moved from {old} to {role} on {proj}",
        ]

    return w.slot_fact(("role", p, proj), n, t, initial, update)


def k_focal(w: World, n: Note, t: datetime) -> Draft | None:
    if not n.orgs:
        return None
    org = n.orgs[0]

    def initial():
        p = w.rng.choice(V.ORGS[org])
        return p, [
            f"{p} is the focal contact for {org}",
            f"our main contact at {org} is {p}",
            f"the focal contact for {org} is {p}",
        ]

    def update(old):
        others = [p for p in V.ORGS[org] if p != old]
        if not others:
            return None, []
        p = w.rng.choice(others)
        return p, [
            f"{p} replaced {old} as the focal contact for {org}",
            f"{p} is now the focal contact for {org}, taking over from {old}",
        ]

    return w.slot_fact(("focal", org), n, t, initial, update)


def k_apiver(w: World, n: Note, t: datetime) -> Draft | None:
    api = w.rng.choice(n.apis)

    def initial():
        v = V.APIS[api]
        return v, [
            f"the {api} is on v{v}",
            f"we call v{v} of the {api}",
            f"{api} version in use: v{v}",
        ]

    def update(old):
        v = old + 1
        return v, [
            f"the {api} moved to v{v} on {day(t)}",
            f"the {api} is now v{v} (switched {day(t)})",
            f"we migrated to v{v} of the {api} on {day(t)}",
        ]

    return w.slot_fact(("apiver", api), n, t, initial, update)


def k_deadline(w: World, n: Note, t: datetime) -> Draft | None:
    proj = n.project
    m = w.rng.choice(V.MILESTONES[:4])

    def initial():
        due = t + timedelta(days=w.rng.randint(30, 120))
        return day(due), [
            f"the {proj} {m} deadline is {day(due)}",
            f"{proj} {m} is due on {day(due)}",
        ]

    def update(old):
        was = datetime.fromisoformat(old).replace(tzinfo=UTC)
        due = max(was, t) + timedelta(days=w.rng.randint(7, 45))
        why = w.rng.choice(V.DELAY_REASONS)
        return day(due), [
            f"the {proj} {m} deadline moved to {day(due)} because {why}",
            f"{proj} {m} slipped to {day(due)}: {why}",
        ]

    return w.slot_fact(("deadline", proj, m), n, t, initial, update)


def k_status(w: World, n: Note, t: datetime) -> Draft | None:
    proj = n.project

    def initial():
        return 0, [f"{proj} is {V.STATUSES[0]}", f"status of {proj}: {V.STATUSES[0]}"]

    def update(old):
        i = min(old + w.rng.randint(1, 2), len(V.STATUSES) - 1)
        st = V.STATUSES[i]
        if st == "live":
            return i, [f"{proj} went live on {day(t)}", f"{proj} is live since {day(t)}"]
        return i, [f"{proj} is {st} now", f"{proj} is now {st}", f"status of {proj}: {st}"]

    return w.slot_fact(("status", proj), n, t, initial, update)


def k_ratelimit(w: World, n: Note, t: datetime) -> Draft | None:
    api = w.rng.choice(n.apis)

    def initial():
        v = w.rng.choice(V.RATE_LIMITS[:4])
        return v, [
            f"the {api} rate limit is {v} requests per minute per client",
            f"{api}: {v} req/min per client",
            f"the {api} allows {v} requests a minute for each client",
        ]

    def update(old):
        v = w.rng.choice([x for x in V.RATE_LIMITS if x != old])
        verb = "raised" if v > old else "lowered"
        return v, [
            f"the {api} rate limit was {verb} to {v} requests per minute",
            f"the {api} now allows {v} req/min per client ({verb} from {old})",
        ]

    return w.slot_fact(("ratelimit", api), n, t, initial, update)


def k_owner(w: World, n: Note, t: datetime) -> Draft | None:
    task = w.rng.choice(V.TASKS)
    team = V.PROJECTS[n.project][0]

    def initial():
        p = w.rng.choice(team)
        return p, [
            f"{p} owns the task to {task} for {n.project}",
            f"action item for {p}: {task} ({n.project})",
        ]

    def update(old):
        p = w.rng.choice([x for x in team if x != old] or [old])
        return p, [
            f"the task to {task} was handed from {old} to {p}",
            f"{p} took over the task to {task} from {old}",
        ]

    return w.slot_fact(("owner", task, n.project), n, t, initial, update)


def k_renewal(w: World, n: Note, t: datetime) -> Draft | None:
    if not n.orgs:
        return None
    org = n.orgs[0]

    def initial():
        due = t + timedelta(days=w.rng.randint(60, 300))
        return day(due), [
            f"the {org} contract renews on {day(due)}",
            f"{org} renewal date: {day(due)}",
        ]

    def update(old):
        was = datetime.fromisoformat(old).replace(tzinfo=UTC)
        due = max(was, t) + timedelta(days=w.rng.randint(30, 365))
        return day(due), [
            f"the {org} contract renewal moved to {day(due)}",
            f"{org} now renews on {day(due)} after the renegotiation",
        ]

    return w.slot_fact(("renewal", org), n, t, initial, update)


def k_env(w: World, n: Note, t: datetime) -> Draft | None:
    proj = n.project

    def initial():
        v = w.rng.choice(V.INFRA)
        return v, [f"staging for {proj} runs on {v}", f"{proj} staging lives on {v}"]

    def update(old):
        v = w.rng.choice([x for x in V.INFRA if x != old])
        return v, [f"staging for {proj} moved to {v}", f"{proj} staging now runs on {v}"]

    return w.slot_fact(("env", proj), n, t, initial, update)


def k_channel(w: World, n: Note, t: datetime) -> Draft | None:
    if not n.orgs:
        return None
    org = n.orgs[0]

    def initial():
        v = w.rng.choice(V.CHANNELS)
        return v, [f"{org} prefers {v} for escalations", f"escalations to {org} go through {v}"]

    def update(old):
        v = w.rng.choice([x for x in V.CHANNELS if x != old])
        return v, [f"{org} now wants escalations through {v}", f"{org} switched escalations to {v}"]

    return w.slot_fact(("channel", org), n, t, initial, update)


def k_decision(w: World, n: Note, t: datetime) -> Draft | None:
    free = [i for i in range(len(V.DECISIONS)) if (n.project, i) not in w.used_decisions]
    if not free:
        return None
    i = w.rng.choice(free)
    w.used_decisions.add((n.project, i))
    thing, choice, why = V.DECISIONS[i]
    p = w.rng.choice(n.people)
    return w.phrased(
        [
            f"we picked {choice} for {thing} in {n.project} because {why}",
            f"{n.project} uses {choice} for {thing}: {why}",
            f"decision on {n.project}: {choice} for {thing}, since {why} ({p} proposed it)",
        ],
        t,
        n,
    )


def k_task(w: World, n: Note, t: datetime) -> Draft | None:
    p = w.rng.choice(n.people)
    task = w.rng.choice(V.TASKS)
    if not w.once("task", p, task):
        return None
    due = day(t + timedelta(days=w.rng.randint(2, 21)))
    return w.phrased([f"{p} will {task} by {due}", f"action item: {p} to {task} before {due}"], t, n)


def k_blocker(w: World, n: Note, t: datetime) -> Draft | None:
    task = w.rng.choice(V.TASKS)
    what = w.rng.choice(
        [
            f"a decision from {w.rng.choice(n.people)}",
            f"the {w.rng.choice(n.apis)} sandbox credentials",
            f"a review by {w.rng.choice(V.INTERNAL)}",
        ]
    )
    if not w.once("block", task, what):
        return None
    return w.phrased(
        [f"the task to {task} is blocked on {what}", f"blocked: {task}, waiting for {what}"], t, n
    )


def k_incident(w: World, n: Note, t: datetime) -> Draft | None:
    api = w.rng.choice(n.apis)
    mins = w.rng.choice([4, 9, 12, 17, 25, 40, 75])
    cause = w.rng.choice(V.INCIDENT_CAUSES)
    when = day(t - timedelta(days=w.rng.randint(1, 4)))
    return w.phrased(
        [
            f"the {api} returned 5xx errors for {mins} minutes on {when} after {cause}",
            f"incident {when}: {api} errors for {mins} min because {cause}",
        ],
        t,
        n,
    )


def k_trait(w: World, n: Note, t: datetime) -> Draft | None:
    api = w.rng.choice(n.apis)
    trait = w.rng.choice(V.API_TRAITS)
    if not w.once("trait", api, trait):
        return None
    return w.phrased([f"the {api} {trait}", f"note on the {api}: it {trait}"], t, n)


def k_preference(w: World, n: Note, t: datetime) -> Draft | None:
    p = w.rng.choice(n.people)
    a, b, topic = w.rng.choice(V.PREFERENCES)
    if not w.once("pref", p, topic):
        return None
    return w.phrased(
        [f"{p} prefers {a} over {b} for {topic}", f"for {topic}, {p} likes {a} better than {b}"],
        t,
        n,
    )


def k_works_at(w: World, n: Note, t: datetime) -> Draft | None:
    outside = [(p, o) for o in n.orgs for p in V.ORGS[o] if p in n.people]
    if not outside:
        return None
    p, org = w.rng.choice(outside)
    if not w.once("works", p):
        return None
    team = w.rng.choice(["finance", "operations", "IT", "procurement", "product", "compliance"])
    return w.phrased([f"{p} works at {org} in the {team} team", f"{p} is in {org}'s {team} team"], t, n)


def k_agreement(w: World, n: Note, t: datetime) -> Draft | None:
    a = w.rng.choice(V.AGREEMENTS)
    if not w.once("agree", n.project, a):
        return None
    return w.phrased([f"the {n.project} team agreed to {a}", f"{n.project}: we agreed to {a}"], t, n)


def k_metric(w: World, n: Note, t: datetime) -> Draft | None:
    m = w.rng.choice(V.METRICS)
    val = {
        "p95 latency": f"{w.rng.randint(80, 900)} ms",
        "error rate": f"{w.rng.randint(1, 40) / 10}%",
        "weekly active users": f"{w.rng.randint(40, 9000)}",
        "test coverage": f"{w.rng.randint(55, 93)}%",
        "build time": f"{w.rng.randint(3, 25)} min",
    }[m]
    month = (t - timedelta(days=20)).strftime("%B %Y")
    if not w.once("metric", n.project, m, month):
        return None
    return w.phrased([f"{n.project} {m} was {val} in {month}", f"{m} of {n.project} in {month}: {val}"], t, n)


def k_risk(w: World, n: Note, t: datetime) -> Draft | None:
    p = w.rng.choice(n.people)
    risk = w.rng.choice(V.RISKS)
    if not w.once("risk", n.project, risk):
        return None
    return w.phrased(
        [f"{p} flagged {risk} as a risk for {n.project}", f"risk on {n.project} ({p}): {risk}"],
        t,
        n,
    )


def k_feature(w: World, n: Note, t: datetime) -> Draft | None:
    if not n.orgs:
        return None
    org = n.orgs[0]
    who = [p for p in n.people if p in V.ORGS[org]] or V.ORGS[org]
    p = w.rng.choice(who)
    feat = w.rng.choice(V.FEATURES)
    if not w.once("feat", org, feat):
        return None
    return w.phrased(
        [f"{p} from {org} asked for {feat} in {n.project}", f"{org} wants {feat} in {n.project}"],
        t,
        n,
    )


MENUS = {
    "standup": {
        k_task: 3,
        k_status: 1,
        k_deadline: 1,
        k_blocker: 1.5,
        k_owner: 2,
        k_metric: 1,
        k_agreement: 0.4,
    },
    "planning": {
        k_deadline: 3,
        k_owner: 2,
        k_task: 2,
        k_status: 1.5,
        k_risk: 1,
        k_agreement: 1,
        k_role: 1,
    },
    "design-review": {k_decision: 4, k_apiver: 1, k_ratelimit: 1, k_trait: 2, k_env: 1, k_risk: 1},
    "client-call": {
        k_focal: 2,
        k_feature: 3,
        k_renewal: 1,
        k_deadline: 1,
        k_channel: 1,
        k_works_at: 1.5,
        k_preference: 1,
    },
    "vendor-thread": {
        k_apiver: 2,
        k_ratelimit: 2,
        k_trait: 2,
        k_focal: 1,
        k_renewal: 1,
        k_works_at: 1,
    },
    "incident-review": {k_incident: 3, k_trait: 1, k_task: 2, k_ratelimit: 1, k_risk: 1},
    "release-notes": {k_apiver: 3, k_status: 2, k_metric: 1, k_trait: 1},
    "adr": {k_decision: 5, k_trait: 1, k_env: 0.5},
    "one-on-one": {k_role: 3, k_preference: 2, k_task: 1},
    "wiki": {
        k_trait: 2,
        k_decision: 1,
        k_role: 1,
        k_env: 1,
        k_agreement: 1,
        k_ratelimit: 1,
        k_focal: 1,
        k_channel: 1,
        k_works_at: 1,
        k_owner: 1,
    },
}
