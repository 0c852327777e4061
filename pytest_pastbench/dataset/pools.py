"""Value pools the templates draw from (names, companies, services, ...).

``Draw.unique`` hands out each value once per dataset, so episodes never share an entity and
no two eval prompts can be the same.
"""

from __future__ import annotations

import re


def _split(text: str) -> list[str]:
    """Values separated by ``|`` or line breaks (several per line keeps the lists short)."""
    return [v.strip() for v in re.split(r"[|\n]", text) if v.strip()]


# -- people and places --------------------------------------------------------------------------

PEOPLE = _split("""
Renata Solberg|Ines Okafor|Tomasz Wilk|Priya Raman|Jonas Ekberg|Mei Lindqvist|Amara Diallo|Hugo Ferreira
Sol Marquez|Beatriz Costa|Hank Olsen|Lena Hartmann|Noor Saleh|Gil Rosen|Ama Kwarteng|Tariq Nasser
Ola Johansen|Wen Zhao|Bram Kuipers|Ivo Petrov|Kai Weber|Yara Haddad|Dmitri Orlov|Elif Kaya
Farah Qureshi|Goran Pavic|Helga Brandt|Isak Nyberg|Jun Tanaka|Kofi Mensah|Lucia Romano|Mateo Rivas
Nadia Volkova|Oskar Lund|Paula Novak|Quentin Roux|Rosa Alvarez|Sven Dahl|Tereza Horak|Umar Farouk
Vera Sokolova|Wim de Groot|Xena Papadakis|Yusuf Demir|Zofia Mazur|Anouk Visser|Bruno Ramos|Chiara Conti
Dario Greco|Esme Hughes|Felix Baum|Greta Moller|Hamid Karimi|Ilse Janssen|Jakob Fischer|Karin Berg
""")

CITIES = _split("""
Lisbon|Porto|Tallinn|Gdansk|Valencia|Leeds|Lyon|Utrecht|Aarhus|Bilbao|Graz|Turin|Ghent|Cork|Brno
Malmo|Bergen|Krakow|Seville|Bremen|Bologna|Nantes|Antwerp|Galway|Tampere|Split|Riga|Vilnius|Dresden|Basel
Zagreb|Lille|Padua|Geneva|Oulu|Salzburg|Toulouse|Rotterdam|Dundee|Coimbra
""")

COMPANIES = _split("""
Marlow Logistics|Brightwater Foods|Osterlund Retail|Halden Marine|Kimura Foods|Quarry Bay Partners
Pike & Varga|Lindqvist Tools|Fennick Labs|Ravel Analytics|Northwind Traders|Larkspur Health|Pinecrest Bank
Tidewater Freight|Copperleaf Media|Alder Systems|Bramble Energy|Cobalt Insurance|Driftwood Hotels
Ember Robotics|Fairhaven Clinics|Granite Payroll|Heron Biotech|Ironbark Mining|Juniper Schools
Kestrel Airlines|Lumen Optics|Meridian Grocers|Nettle Apparel|Oakridge Dairy|Palisade Capital
Quill Publishing|Rookwood Legal|Saltmarsh Breweries|Thornbury Cars|Umber Textiles|Vantage Dental
Willow Pharmacy|Yarrow Farms|Zephyr Telecom|Acorn Lettings|Bluefin Seafood|Cinder Games|Dovetail Furniture
""")

VENDORS = _split("""
Northstar Cloud|Bellweather Catering|Crestline Printing|Dynamo Couriers|Evergreen Cleaning|Foxglove Design
Gridline Hosting|Harbor Security|Inkwell Translation|Jetstream Travel|Keystone Staffing|Lodestar Analytics
Monarch Office Supply|Nimbus Telecom|Orchid Events|Parallax Video|Quantum Legal|Riverbend Audio
""")

# lower-case service names: the deploy tool and the reference policies expect them that way
SERVICES = _split("""
billing-api|search-api|ledger-worker|auth-gateway|checkout-web|invoice-renderer|media-transcoder
notify-service|pricing-engine|orders-api|catalog-sync|report-builder|session-store|geo-lookup
payments-router|export-worker|webhook-relay|inventory-api|profile-service|email-dispatch|quote-engine
ranking-service|fraud-scorer|upload-proxy|metrics-gateway|tax-calculator|shipping-api|loyalty-service
""")

TEAMS = [
    "platform",
    "payments",
    "data platform",
    "mobile",
    "growth",
    "support tooling",
    "identity",
    "analytics",
    "infrastructure",
    "checkout",
    "search",
    "security",
    "finance systems",
    "logistics",
    "developer experience",
    "messaging",
    "billing",
    "trust and safety",
    "reliability",
    "storage",
]

# Codenames the archive is indexed under (one word, capitalised: what teams call projects).
CODENAMES = _split("""
Halyard|Marigold|Quartz|Bramblewood|Sextant|Juniper|Tamarind|Osprey|Kingfisher|Larch|Monsoon|Nightjar
Obsidian|Peregrine|Quokka|Rosewood|Saffron|Tundra|Umbra|Vesper|Wren|Yucca|Zinnia|Alder|Basalt|Cormorant
Driftwood|Egret|Fennel|Garnet|Heather|Ibis|Jasper|Kestrel|Lupin|Magnolia|Nutmeg|Opal|Puffin|Quince
Raven|Sorrel|Thistle|Upland|Verbena|Willet|Yarrowby|Zircon|Acacia|Bittern|Cedar|Dunlin|Elder|Foxtail
Gannet|Hornbeam|Indigo|Jacana|Kelp|Linnet|Merlin|Nettlebed|Oriole|Plover|Rowan|Sandpiper|Teal|Curlew
Dotterel|Fulmar|Godwit|Hoopoe|Lapwing|Mallard|Nuthatch|Pipit|Redstart|Shrike|Tern|Whimbrel|Avocet
Bunting|Crossbill|Dipper|Eider|Firecrest|Goldcrest|Harrier|Jackdaw|Knot|Martin|Ouzel|Pochard|Rook
Scaup|Twite|Wagtail|Siskin|Serin|Smew|Stint|Swift|Tit|Veery|Vireo|Warbler|Waxwing|Whinchat
""")

# Public product names (what users say) and the thing each refers to.
PRODUCTS = _split("""
self-serve checkout|partner portal|mobile wallet|loyalty app|pricing page redesign|team dashboards
usage-based billing|in-app chat|offline mode|bulk export|smart search|referral programme|single sign-on
audit log viewer|invoice automation|dark mode|two-factor login|multi-currency payouts|public API v3
customer health scores|shared inboxes|calendar sync|receipt scanning|fleet tracking|live captions
""")

SECRET_SYSTEMS = ["CRM export", "evidence portal", "VPN", "staging admin", "vendor portal", "billing console"]
SECRET_WORDS = _split("""
Lumen|Vq7mesa|Kelpie|Orbit|Zephyr|Cobalt|Quasar|Nimbus|Vortex|Ember|Falcon|Glacier|Harbor|Indigo|Jade
Krypton|Lotus|Mosaic|Nova|Onyx|Prism|Quill|Raptor|Summit|Tango|Umbra|Velvet|Willow|Xenon|Yonder
""")

HOSTS = _split("""
db-r2|db-r3|cache-04|queue-02|edge-07|worker-11|batch-03|search-05|etl-09|ingest-06|kafka-03|mq-12
vault-02|node-17|api-08|cron-01|stats-04|mail-02|gw-06|lb-03|repl-05|shard-12|blob-07|tsdb-02
""")

FOODS = ["peanuts", "shellfish", "gluten", "sesame", "dairy", "tree nuts", "eggs", "soy", "mustard", "celery"]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October"]

QUEUES = _split("""
FIN-AR|FIN-AP|OPS-DB|OPS-NET|SEC-IR|SEC-ACCESS|SUP-T2|SUP-VIP|DATA-PIPE|DATA-GOV|PLAT-K8S|PLAT-CI
BILL-DISPUTE|BILL-OPS|HR-ONB|IT-HELP|LEGAL-CTR|MKT-OPS|SALES-DESK|CX-ESC|INFRA-DNS|INFRA-STOR
PAY-RISK|PAY-OPS|ID-SSO|QA-REL|REL-TRAIN|DOC-PUB|ML-PLAT|GEO-OPS
""")

NOISE = [
    ("Just for today I'm working from the {place} office, so the VPN may be slow.", "{place} office"),
    ("This afternoon I'm on a train to {place}, so replies may come late.", "train to {place}"),
    (
        "Only today the coffee machine on the {place} floor is broken, which is why I'm grumpy.",
        "{place} floor",
    ),
    ("For now I'm sitting in the {place} meeting room while mine is being cleaned.", "{place} meeting room"),
    ("This morning I'm covering for a colleague from the {place} team.", "{place} team"),
]

DISTRACTORS = [
    "Could you suggest five books on the history of cartography for my book club?",
    "What's a sensible 30-minute piano practice routine for an adult beginner?",
    "How do volcanoes form? Could you explain it the way you would to a ten-year-old?",
    "Which is better for a fit but nervous-of-heights walker, a ridge hike or a lakeside loop?",
    "What's the difference between espresso roast and filter roast coffee beans?",
    "Could you give me three science-fair ideas for a 12-year-old who likes plants?",
    "What's a good beginner routine for learning to juggle three balls?",
    "How much paint do I need for a 3.2 by 4 metre room with 2.5 metre walls, two coats?",
    "Which five sailing knots should a beginner practise first?",
    "Can you recommend podcasts about the history of jazz for a long drive?",
    "What are easy houseplants for a north-facing flat?",
    "How should I store fresh herbs so they last a week?",
    "Could you explain the offside rule in football in plain words?",
    "What's a gentle stretching routine after a long day at a desk?",
    "How do I keep sourdough starter alive while I'm away for two weeks?",
    "What are some good board games for four players who dislike long rules?",
    "How can I get my cat used to a new carrier before a vet visit?",
    "What should I pack for a three-day cycling trip in spring?",
    "Could you suggest a simple weekly meal plan for someone learning to cook?",
    "What's the best way to learn the basics of birdwatching?",
    "How do I remove a red wine stain from a wool rug?",
    "Which constellations are easy to spot in the winter sky?",
    "What's a fun way to teach kids about fractions with pizza?",
    "Could you explain how tides work in a few sentences?",
]
