"""Generated LoCoMo-style conversations and questions for the recall benchmarks (issue 43).

LoCoMo (a paper's data set) holds long chats between two people over many dated sessions,
and questions about them in four kinds: single-hop (one turn answers it), multi-hop (two
turns together), temporal (when something happened), open-domain (a guess from what was
said). Its questions are the held-out set; these are our own, built the same way so that
tuning on them cannot fit LoCoMo itself:

- each conversation is two people chatting over SESSIONS dated sessions; each turn is one
  memory, written as mem0's own LoCoMo evaluation writes one (`Name: what they said`);
- a person's life events (a pet, a trip, a new job, a class, a race, ...) are said once, in
  one of several phrasings, among small talk and the other person's own similar news;
- a question asks about an event in other words than the turn's (`dog` for `beagle`,
  `begin` for `started`), naming the person as LoCoMo's questions do; its evidence is the
  turn (or, multi-hop, the turns) that answer it.

`build(seed)` returns (turns, questions); the same seed gives the same world.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

SEED = 43
CONVERSATIONS = 10
SESSIONS = 14
PEOPLE = (
    "Caroline Melanie Jon Gina Audrey Andrew Deborah Jolene Evan Sam Calvin Dave Tim John "
    "Maria Joanna Nate James Priya Tomas"
).split()
CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain")


@dataclass(frozen=True)
class Turn:
    id: str  # conversation:session:turn
    conversation: str
    speaker: str
    text: str  # `Speaker: words`, as stored
    at: datetime


@dataclass(frozen=True)
class Question:
    conversation: str
    category: str
    text: str
    evidence: tuple[str, ...]


@dataclass
class Topic:
    """One kind of life event: how a person says it, and what is asked about it."""

    key: str
    values: dict[str, tuple[str, ...]]
    said: tuple[str, ...]  # what the person says, {slots} filled
    asked: tuple[tuple[str, str], ...]  # (category, question) with {P} the person
    other: tuple[str, ...] = ()  # the listener's reply (no evidence)
    follow: tuple[str, ...] = ()  # a later turn about the same event (multi-hop's second turn)
    follow_asked: tuple[str, ...] = ()  # multi-hop questions needing both turns


TOPICS = (
    Topic(
        "pet",
        {
            "kind": ("beagle", "golden retriever", "tabby kitten", "border collie"),
            "name": ("Biscuit", "Oscar", "Luna", "Pepper", "Maple"),
        },
        (
            "We finally brought home a little {kind}! We named it {name} and it chews everything.",
            "Meet {name}, our new {kind}. Adopted from the shelter on Saturday.",
            "Big news: I adopted a {kind} last weekend, {name} is asleep on my feet right now.",
        ),
        (
            ("single-hop", "What is the name of {P}'s pet?"),
            ("temporal", "When did {P} adopt {name}?"),
            ("open-domain", "Would {P} be likely to volunteer at an animal rescue?"),
        ),
        other=("Aww {name} is such a cute name!", "A {kind}? You'll never sleep again haha"),
        follow=("Took {name} to the vet today, all shots done and a clean bill of health.",),
        follow_asked=("What did {P} do for {name} after bringing the animal home?",),
    ),
    Topic(
        "trip",
        {
            "place": ("Kyoto", "Lisbon", "Reykjavik", "Cape Town", "Oaxaca"),
            "what": ("the temples", "the food markets", "a glacier hike", "the coastline"),
        },
        (
            "Just got back from {place}! Honestly {what} was the highlight of the whole trip.",
            "Spent ten days in {place} with my sister, we couldn't stop talking about {what}.",
        ),
        (
            ("single-hop", "Where did {P} travel on vacation?"),
            ("temporal", "When did {P} go to {place}?"),
            ("single-hop", "What did {P} enjoy most when visiting {place}?"),
            ("open-domain", "Does {P} like exploring other countries?"),
        ),
        other=("No way, {place} has been on my list forever.", "Jealous! Send me pictures."),
        follow=("Printed the photos from {place} and framed the best one for the living room.",),
        follow_asked=("What did {P} do with the pictures from the journey?",),
    ),
    Topic(
        "job",
        {
            "role": ("nurse", "software engineer", "pastry chef", "high school teacher", "paralegal"),
            "where": (
                "St. Mary's hospital",
                "a fintech startup",
                "a bakery downtown",
                "Lincoln High",
                "a law firm",
            ),
        },
        (
            "I start my new position as a {role} at {where} on Monday, nervous but excited.",
            "Signed the offer! I'm going to be a {role} at {where}.",
        ),
        (
            ("single-hop", "What new job did {P} take?"),
            ("temporal", "When did {P} begin working at {where}?"),
            ("single-hop", "Where does {P} work now?"),
        ),
        other=("Congrats!! They're lucky to have you.", "That's huge, we need to celebrate."),
        follow=("First month at {where} done, my manager says I'm picking it up fast.",),
        follow_asked=("How is {P} getting on in the role of {role}?",),
    ),
    Topic(
        "class",
        {"craft": ("pottery", "watercolor painting", "salsa dancing", "woodworking", "Italian cooking")},
        (
            "I signed up for a {craft} class on Thursday evenings, first session was a blast.",
            "Been taking {craft} lessons for a few weeks now, my instructor is so patient.",
        ),
        (
            ("single-hop", "What hobby did {P} pick up?"),
            ("temporal", "When did {P} start the {craft} course?"),
            ("open-domain", "Would {P} enjoy a weekend crafts fair?"),
        ),
        other=("Ooh, make me something!", "I've always wanted to try that."),
    ),
    Topic(
        "race",
        {
            "race": ("half marathon", "10K charity run", "triathlon", "trail ultra"),
            "city": ("Boston", "Denver", "Chicago", "Austin"),
        },
        (
            "I finished the {race} in {city} this morning! My legs are jelly.",
            "Crossed the finish line of the {city} {race} yesterday, personal best too.",
        ),
        (
            ("single-hop", "What race did {P} complete?"),
            ("temporal", "When did {P} run in {city}?"),
            ("open-domain", "Is {P} someone who keeps physically active?"),
        ),
        other=("You're a machine!", "Proud of you, that's so hard."),
    ),
    Topic(
        "move",
        {
            "city": ("Portland", "Seattle", "Denver", "Nashville", "Tucson"),
            "why": (
                "to be closer to my parents",
                "for a cheaper apartment",
                "because my partner got a job there",
            ),
        },
        (
            "We're packing boxes, moving to {city} at the end of the month {why}.",
            "Officially a resident of {city} now! Moved {why}.",
        ),
        (
            ("single-hop", "Which city did {P} relocate to?"),
            ("single-hop", "Why did {P} move to {city}?"),
            ("temporal", "When did {P} move?"),
        ),
        other=("{city} is lovely, you'll like it.", "Moving is the worst, good luck!"),
    ),
    Topic(
        "instrument",
        {
            "instrument": ("violin", "ukulele", "piano", "cello", "drums"),
            "song": ("Moon River", "Clair de Lune", "Wonderwall", "Hallelujah"),
        },
        (
            "I've been practicing {instrument} every night, I can almost play {song} now.",
            "Finally learned {song} on the {instrument}, took me months!",
        ),
        (
            ("single-hop", "What musical instrument is {P} learning?"),
            ("single-hop", "Which song can {P} play?"),
            ("open-domain", "Would {P} enjoy going to a concert?"),
        ),
        other=("Play it for me next time!", "That's such a pretty song."),
    ),
    Topic(
        "family",
        {
            "who": ("sister", "brother", "cousin", "best friend"),
            "event": ("wedding", "baby shower", "graduation"),
            "place": ("a vineyard", "the lake house", "a rooftop in town"),
        },
        (
            "My {who}'s {event} was at {place} this weekend, I cried the whole time.",
            "Spent Saturday at {place} for my {who}'s {event}, such a beautiful day.",
        ),
        (
            ("single-hop", "What family celebration did {P} attend?"),
            ("temporal", "When was the {event} of {P}'s {who}?"),
            ("single-hop", "Where was {P}'s {who}'s {event} held?"),
        ),
        other=("Congratulations to them!", "That sounds like a perfect day."),
    ),
    Topic(
        "book",
        {
            "book": ("Becoming", "The Midnight Library", "Educated", "Project Hail Mary", "Circe"),
            "author": ("Michelle Obama", "Matt Haig", "Tara Westover", "Andy Weir", "Madeline Miller"),
        },
        (
            "Just finished reading {book}, couldn't put it down.",
            "My book club picked {book} this month and I loved every page.",
        ),
        (
            ("single-hop", "What book did {P} read recently?"),
            ("open-domain", "Does {P} like reading novels?"),
        ),
        other=("I've heard great things about {book}.", "Add it to my list!"),
    ),
    Topic(
        "volunteer",
        {
            "org": (
                "a food bank",
                "an LGBTQ support group",
                "the animal shelter",
                "a literacy program",
                "a youth mentoring center",
            )
        },
        (
            "I volunteered at {org} yesterday, it was so powerful to hear everyone's stories.",
            "Started volunteering with {org} on weekends, it's given me so much purpose.",
        ),
        (
            ("single-hop", "Where does {P} volunteer?"),
            ("temporal", "When did {P} go to {org}?"),
            ("open-domain", "Does {P} care about helping the community?"),
        ),
        other=("That's really inspiring.", "You're such a good person."),
    ),
)
AGGREGATE = (
    ("What activities does {P} do in their free time?", ("class", "race", "instrument", "book")),
    ("What big life changes has {P} gone through?", ("job", "move", "pet")),
    ("What events has {P} been part of?", ("family", "race", "volunteer", "trip")),
)
SMALL = (
    "Hey! How have you been?",
    "Long time no talk! What's new with you?",
    "Work has been crazy lately, I barely have time to breathe.",
    "That sounds amazing!",
    "Haha I totally get that.",
    "I've been so tired this week, need a vacation.",
    "We should grab coffee soon.",
    "Thanks for checking in, it means a lot.",
    "Oh wow, tell me more!",
    "I'm so happy for you.",
    "The weather has been awful here, rain every day.",
    "Did you watch the game last night?",
    "I made lasagna for dinner, turned out great.",
    "Talk soon, take care!",
    "Same here honestly.",
    "That's wild, I had no idea.",
)


ASIDES = (
    "Anyway, how's your week going?",
    "My neighbor's kids were screaming all morning.",
    "I need to get back to the gym at some point.",
    "Coffee is the only thing keeping me going.",
    "My mom called three times today lol.",
    "I'm trying to cut back on screen time.",
    "We binged a whole series this weekend.",
    "The traffic on the way home was unreal.",
    "I finally cleaned out the garage.",
    "Still can't believe how fast this year is going.",
    "I burned the toast again this morning.",
    "Our internet was down for half the day.",
)


@dataclass
class Life:
    person: str
    events: list[tuple[Topic, dict[str, str], int]] = field(default_factory=list)  # topic, values, session


def build(seed: int = SEED) -> tuple[list[Turn], list[Question]]:
    rng = random.Random(seed)
    turns: list[Turn] = []
    questions: list[Question] = []
    start = datetime(2023, 1, 8, 13, 0, tzinfo=UTC)
    names = list(PEOPLE)
    rng.shuffle(names)
    for c in range(CONVERSATIONS):
        conv = f"conv-{c + 1}"
        pair = (names[(2 * c) % len(names)], names[(2 * c + 1) % len(names)])
        lives = [Life(p) for p in pair]
        for life in lives:  # each person lives through 5-7 events, in sessions of their own
            for topic in rng.sample(TOPICS, rng.randint(5, 7)):
                values = {k: rng.choice(v) for k, v in topic.values.items()}
                life.events.append((topic, values, rng.randrange(SESSIONS - 1)))
        when = start + timedelta(days=rng.randint(0, 60))
        said: dict[tuple[int, str], str] = {}  # (life, topic) -> turn id
        followed: dict[tuple[int, str], str] = {}
        for s in range(SESSIONS):
            when += timedelta(days=rng.randint(5, 25), hours=rng.randint(-3, 3))
            script: list[tuple[str, str, tuple[int, str] | None, bool]] = []
            script.append((pair[0], rng.choice(SMALL[:2]), None, False))
            script.append((pair[1], rng.choice(SMALL[2:]), None, False))
            for li, life in enumerate(lives):
                other = pair[1 - li]
                for topic, values, at in life.events:
                    if at == s:
                        script.append(
                            (life.person, rng.choice(topic.said).format(**values), (li, topic.key), False)
                        )
                        if topic.other:
                            script.append((other, rng.choice(topic.other).format(**values), None, False))
                    if topic.follow and at + 1 + len(topic.key) % 3 == s:
                        script.append(
                            (life.person, rng.choice(topic.follow).format(**values), (li, topic.key), True)
                        )
            for _ in range(rng.randint(6, 12)):  # small talk around the news, rarely word for word
                chat = rng.choice(SMALL)
                if rng.random() < 0.7:
                    chat = f"{chat} {rng.choice(ASIDES)}"
                script.insert(rng.randint(2, len(script)), (pair[rng.randint(0, 1)], chat, None, False))
            for t, (speaker, text, event, follow) in enumerate(script):
                tid = f"{conv}:{s + 1}:{t + 1}"
                turns.append(Turn(tid, conv, speaker, f"{speaker}: {text}", when + timedelta(minutes=t)))
                if event is not None:
                    (followed if follow else said)[event] = tid
        for li, life in enumerate(lives):
            for topic, values, _ in life.events:
                tid = said[(li, topic.key)]
                for category, q in topic.asked:
                    questions.append(Question(conv, category, q.format(P=life.person, **values), (tid,)))
                later = followed.get((li, topic.key))
                for q in topic.follow_asked if later else ():
                    questions.append(
                        Question(conv, "multi-hop", q.format(P=life.person, **values), (tid, later))
                    )
            for q, keys in AGGREGATE:  # questions whose answer gathers several turns
                found = tuple(said[(li, k)] for k in keys if (li, k) in said)
                if len(found) >= 2:
                    questions.append(Question(conv, "multi-hop", q.format(P=life.person), found))
    return turns, questions


if __name__ == "__main__":
    turns, questions = build()
    by = {c: sum(q.category == c for q in questions) for c in CATEGORIES}
    print(f"{len(turns)} turns, {len(questions)} questions: {by}")
    for q in questions[:12]:
        print(q.category, "|", q.text, "|", [t.text for t in turns if t.id in q.evidence])
