"""Keyword tables of the offline planner, kept as data.

Every table maps a plan concept (a section kind, a slot, a palette role, a chart type, …) to the
words a design prompt uses for it. Matching is case-insensitive on whole words unless a table
says otherwise; the order of a table is its priority where several entries match.
"""

from __future__ import annotations

import json

from mmstudio.resources import resource


def _data_words(name: str, key: str) -> tuple[str, ...]:
    """The word list ``key`` of ``resources/offline/<name>``."""
    data = json.loads(resource("offline", name).read_text(encoding="utf-8"))
    return tuple(data[key])


# Page kinds, in priority order: the first whose words occur in the opening sentence wins.
PAGE_KINDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("dashboard", ("dashboard", "control center", "command center", "analytics")),
    ("event", ("event", "conference", "festival", "summit", "camp", "workshop series", "meetup")),
    ("portfolio", ("portfolio", "showreel")),
    (
        "ecommerce",
        ("e-commerce", "ecommerce", "online store", "shop", "storefront", "product page"),
    ),
    ("docs", ("documentation", "docs site", "api reference", "handbook")),
    (
        "editorial",
        ("editorial", "magazine", "research", "journal", "blog", "archive", "newsletter"),
    ),
    ("landing", ("landing page", "homepage", "home page", "website", "site")),
)

# Section kinds (plan.SECTION_KINDS) and the nouns that introduce them, in priority order.
SECTION_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("footer", ("footer",)),
    (
        "header",
        ("header", "navigation bar", "nav bar", "navbar", "top bar", "masthead", "top strip"),
    ),
    ("hero", ("hero", "first viewport", "above the fold", "splash")),
    ("sidebar", ("sidebar", "side bar", "side panel", "left rail", "side navigation")),
    ("stats", ("kpi", "kpis", "stats", "statistics", "metric tiles", "stat cards", "counters")),
    ("charts", ("chart", "charts", "graph", "data visualization", "progress bars", "sparkline")),
    ("table", ("table", "leaderboard", "ranking panel", "ranking")),
    (
        "testimonials",
        (
            "testimonial",
            "testimonials",
            "reviews",
            "quotes from",
            "what people say",
            "kind words",
            "praise",
        ),
    ),
    ("pricing", ("pricing", "price", "plans", "tickets", "ticket", "membership tiers")),
    ("timeline", ("timeline", "schedule", "agenda", "roadmap", "itinerary", "program")),
    (
        "team",
        (
            "team",
            "speakers",
            "speaker",
            "crew",
            "faculty",
            "instructors",
            "mentors",
            "people",
            "guides",
            "founders",
            "meet the",
            "hosts",
            "facilitators",
            "artists",
            "researchers",
        ),
    ),
    ("gallery", ("gallery", "mosaic", "showcase", "selected work", "projects", "case studies")),
    (
        "form",
        (
            "form section",
            "signup form",
            "sign-up form",
            "contact form",
            "newsletter",
            "subscribe form",
            "email form",
            "registration form",
            "rsvp",
            "booking form",
            "contact section",
            "newsletter signup",
            "waitlist",
        ),
    ),
    (
        "features",
        (
            "features section",
            "feature cards",
            "feature grid",
            "key features",
            "benefits",
            "modules",
            "tracks",
            "categories",
            "courses",
        ),
    ),
    (
        "cta",
        (
            "call to action section",
            "call-to-action section",
            "cta section",
            "closing band",
            "call-to-action band",
            "call-to-action block",
            "call-to-action banner",
            "cta band",
        ),
    ),
)

# Nouns that name a block of the page: a cue sentence must contain one to open a section.
BLOCK_NOUNS = (
    "section", "band", "strip", "panel", "block", "area", "header", "footer", "hero", "sidebar",
    "zone", "region",
)  # fmt: skip

# Openings that move down the page ("Below the header, …"): they may start a section mid-paragraph.
POSITION_CUES = (
    "at the very top", "at the top of the page", "at the top", "directly beneath", "directly below",
    "directly under", "right below", "just below", "below", "beneath", "underneath", "under",
    "next", "then", "following", "after", "further down", "further", "near the bottom",
    "at the bottom", "at the very bottom", "finally", "scrolling", "continue", "to close",
    "the central body", "the main body", "in the center", "on the upper", "in the lower",
    "in the upper", "on the lower", "the left column", "the middle column", "the right column",
    "the lower", "the upper", "fill the", "place", "create", "add", "include",
)  # fmt: skip

# Slots for a quoted string, found by the nearest keyword before the quote (last one wins).
SLOT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nav", ("navigation", "nav", "menu", "nav links", "menu items", "navigation links", "link",
             "links", "text link", "quick links")),
    ("button", ("button", "buttons", "cta", "call-to-action")),
    ("brand", ("wordmark", "logo", "logotype", "brand name", "site name")),
    ("title", ("headline", "heading", "title", "titled", "called", "named")),
    ("subtitle", ("subheading", "subheadline", "sub-headline", "subtitle", "tagline", "subtext",
                  "strapline", "intro line", "lede", "deck")),
    ("tag", ("tag", "tags", "chip", "chips", "badge", "badges", "pill", "pills", "label",
             "labels", "sticker", "eyebrow", "capsule", "kicker", "legend", "words")),
    ("paragraph", ("line of text", "sentence", "paragraph", "bio", "blurb", "note", "description",
                   "body text", "small print", "footnote", "disclaimer", "copy")),
    ("kpi", ("kpi", "kpis", "stat", "stats", "metric", "metrics", "counter", "counters")),
    ("caption", ("caption", "captions", "captioned")),
    ("field", ("placeholder", "input", "field", "dropdown", "search bar", "search box",
               "field label", "field labels", "form fields", "input label", "input labels")),
    ("quote", ("quote", "testimonial", "pull quote", "pull-quote", "blockquote")),
    ("attribution", ("attributed to", "attribution", "signed", "credited to", "byline",
                     "the name", "author")),
    ("item", ("items", "list", "steps", "step", "cards", "card", "tiles", "tile", "rows", "bullet",
              "bullets", "columns", "column", "entries")),
)  # fmt: skip

# A word right after a quote that names its slot (“Subscribe” button, “Menu” section).
SUFFIX_SLOTS: dict[str, str] = {
    "button": "button", "buttons": "button", "cta": "button", "link": "nav", "links": "nav",
    "tab": "nav", "tabs": "nav", "chip": "tag", "chips": "tag", "tag": "tag", "tags": "tag",
    "badge": "tag", "badges": "tag", "pill": "tag", "pills": "tag", "section": "name",
    "band": "name", "panel": "title", "heading": "title", "headline": "title",
}  # fmt: skip

# Palette roles and the words near a colour that give them (nearest word wins).
ROLE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("background", ("background", "backgrounds", "bg", "backdrop", "canvas", "page color")),
    ("surface", ("card", "cards", "panel", "panels", "surface", "tile", "tiles", "container")),
    ("text", ("text", "type", "typography", "copy", "ink", "font", "headings", "body",
              "primary text", "main text", "body text")),
    ("muted", ("muted", "secondary text", "caption", "captions", "meta", "subdued")),
    ("primary", ("primary", "main color", "brand", "button", "buttons", "cta")),
    ("accent", ("accent", "accents", "highlight", "highlights", "pop", "links", "link", "glow")),
    ("border", ("border", "borders", "line", "lines", "rule", "rules", "divider", "outline",
                "stroke", "grid lines", "frame")),
)  # fmt: skip

CORE_ROLES = ("background", "surface", "text", "muted", "primary", "accent", "border")

# Named colours a prompt may use without a hex; longest names are matched first.
NAMED_COLORS: dict[str, str] = {
    "off-white": "#f7f5f0", "off white": "#f7f5f0", "cream": "#f6efdf", "ivory": "#fbf8ee",
    "white": "#ffffff", "black": "#111111", "charcoal": "#2b2b2b", "graphite": "#3a3a3c",
    "dark gray": "#3f3f46", "dark grey": "#3f3f46", "gray": "#8a8a8a", "grey": "#8a8a8a",
    "light gray": "#e5e5e5", "light grey": "#e5e5e5", "navy": "#14213d", "midnight": "#0f1630",
    "deep blue": "#1d3a8a", "blue": "#2f6fed", "sky blue": "#7cc4f5", "pale blue": "#dcecfb",
    "teal": "#14b8a6", "pastel teal": "#7dd3c8", "dark teal": "#0f5f5a", "aqua": "#3fd8e0",
    "turquoise": "#2ec4b6", "cyan": "#22d3ee", "mint": "#a7f3d0", "sage": "#a3b18a",
    "forest green": "#2d6a4f", "green": "#2f9e44", "olive": "#6b7f3a", "moss": "#5b6b3a",
    "lime": "#a3e635", "yellow": "#facc15", "pale yellow": "#fef3c7", "mustard": "#d4a017",
    "gold": "#c9a227", "amber": "#f59e0b", "orange": "#f97316", "tangerine": "#ff9e4a",
    "peach": "#ffc8a8", "coral": "#ff6f61", "salmon": "#fa8072", "red": "#e03131",
    "crimson": "#c1121f", "burgundy": "#7a1f3d", "terracotta": "#c8553d", "rust": "#b7472a",
    "pink": "#f472b6", "bubblegum pink": "#ff66a3", "hot pink": "#ff3ea5", "magenta": "#d946ef",
    "blush": "#f6d5d5", "lavender": "#c4b5fd", "pale lavender": "#ede9fe", "lilac": "#c8a2c8",
    "purple": "#7c3aed", "violet": "#6d28d9", "deep violet": "#4c1d95", "dark purple": "#3b0764",
    "indigo": "#4338ca", "brown": "#7b4a2d", "chocolate": "#4e2a1e", "cocoa": "#5a3a2e",
    "caramel": "#c68642", "beige": "#e8dcc4", "sand": "#d8c8a8", "tan": "#c8a27a",
    "kraft": "#c9a97a", "parchment": "#f1e6cc", "neon yellow": "#efff00", "neon green": "#39ff14",
    "neon pink": "#ff2bd6", "neon cyan": "#00f0ff", "electric blue": "#2b6bff",
}  # fmt: skip

DARK_WORDS = ("dark-themed", "dark theme", "dark mode", "dark-mode", "dark background",
              "black background", "night mode", "deep navy background")  # fmt: skip

# Font hints → installed stacks (DejaVu and Liberation are installed here; the rest fall back).
FONT_STACKS: dict[str, str] = {
    "sans": "'Liberation Sans', 'DejaVu Sans', Arial, Helvetica, sans-serif",
    "serif": "'Liberation Serif', 'DejaVu Serif', Georgia, 'Times New Roman', serif",
    "mono": "'Liberation Mono', 'DejaVu Sans Mono', 'Courier New', monospace",
    "display": "'DejaVu Sans', 'Liberation Sans', Impact, sans-serif",
    "script": "'DejaVu Serif', 'Liberation Serif', cursive",
}
FONT_HINT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mono", ("monospace", "monospaced", "mono", "typewriter", "code font", "terminal")),
    ("script", ("script", "handwritten", "hand-lettered", "calligraphic", "cursive")),
    ("serif", ("serif", "didone", "slab")),
    ("display", ("display", "condensed", "grotesk", "extra-bold", "chunky", "bubbly", "poster")),
    ("sans", ("sans-serif", "sans serif", "sans", "geometric", "humanist", "neo-grotesque")),
)
NAMED_FONTS: dict[str, str] = {
    "Courier New": "mono", "Menlo": "mono", "Consolas": "mono", "Monaco": "mono",
    "IBM Plex Mono": "mono", "JetBrains Mono": "mono", "Fira Code": "mono", "Space Mono": "mono",
    "Roboto Mono": "mono", "Source Code Pro": "mono", "Impact": "display", "Anton": "display",
    "Bebas Neue": "display", "Oswald": "display", "Haettenschweiler": "display",
    "Helvetica Neue": "sans", "Helvetica": "sans", "Arial": "sans", "Inter": "sans",
    "Roboto": "sans", "Poppins": "sans", "Montserrat": "sans", "Futura": "sans",
    "Akzidenz-Grotesk": "sans", "Univers": "sans", "Space Grotesk": "sans", "Lato": "sans",
    "Open Sans": "sans", "Nunito": "sans", "Verdana": "sans", "DM Sans": "sans",
    "Georgia": "serif", "Times New Roman": "serif", "Playfair Display": "serif", "Didot": "serif",
    "Garamond": "serif", "Baskerville": "serif", "Bodoni": "serif", "Merriweather": "serif",
    "Lora": "serif", "Comic Sans": "script", "Pacifico": "script", "Caveat": "script",
}  # fmt: skip
HEADING_WORDS = ("heading", "headings", "headline", "headlines", "title", "titles", "display")
BODY_WORDS = ("body", "paragraph", "paragraphs", "copy", "body text", "running text")

MOOD_WORDS = (
    "playful", "vibrant", "minimal", "minimalist", "brutalist", "swiss", "whimsical", "cozy",
    "organic", "futuristic", "neon", "serene", "calm", "bold", "elegant", "luxury", "luxurious",
    "retro", "editorial", "dark", "airy", "warm", "clean", "stark", "high-contrast", "pastel",
    "neo-skeuomorphic", "tactile", "cinematic", "meditative", "rigorous", "friendly", "refined",
    "gritty", "dreamy", "technical", "sci-fi", "hand-crafted", "rustic", "modern", "raw",
)  # fmt: skip

# Element cues: nouns that introduce an image, a video or a chart.
IMAGE_NOUNS = (
    "illustration", "illustrations", "image", "images", "photo", "photos", "photograph",
    "photographs", "portrait", "portraits", "picture", "thumbnail", "thumbnails",
    "artwork", "rendering", "mockup", "collage", "hero image", "screenshot",
    *_data_words("picture_nouns.json", "nouns"),  # "an illustrated map card"
)  # fmt: skip
VIDEO_NOUNS = ("video", "videos", "video loop", "footage", "clip", "cinemagraph", "reel")
CHART_NOUNS = ("chart", "graph", "sparkline", "histogram", "heatmap", "progress bars", "gauges",
               "gauge")  # fmt: skip
NEGATION_GLOBAL = ("anywhere", "at all", "throughout", "entire", "whole page", "present",
                   "appear", "the page", "only static")  # fmt: skip

CHART_TYPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("stacked-bar", ("stacked bar", "stacked column", "stacked-bar")),
    ("grouped-bar", ("grouped bar", "clustered bar", "grouped column", "side-by-side bars")),
    ("horizontal-bar", ("horizontal bar", "progress bars", "bar chart-style list", "ranking bar")),
    ("donut", ("donut", "doughnut", "ring chart")),
    ("pie", ("pie",)),
    ("radar", ("radar", "spider")),
    ("scatter", ("scatter", "bubble chart")),
    ("gauge", ("gauge", "gauges", "dial")),
    ("funnel", ("funnel",)),
    ("area", ("area chart", "area graph", "stacked area")),
    ("line", ("line chart", "line graph", "multi-line", "sparkline", "trend line", "curve")),
    ("bar", ("bar chart", "bar graph", "column chart", "histogram", "bars")),
)

# Descriptive words copied into element attributes.
VISUAL_STYLES = (
    "flat", "vector", "isometric", "3d", "photorealistic", "realistic", "watercolor", "line art",
    "halftone", "cartoon", "editorial", "documentary", "minimal", "abstract", "geometric",
    "hand-drawn", "painterly", "cinematic", "grainy", "collage", "low-poly", "pixel", "neon",
    "brutalist", "playful", "semi-flat", "retro", "monochrome", "black-and-white", "gritty",
)  # fmt: skip
COLOR_TONES = (
    "warm", "cool", "pastel", "muted", "saturated", "vivid", "monochrome", "high-contrast",
    "desaturated", "earthy", "neon", "soft", "golden", "moody", "bright", "dark", "sepia",
)  # fmt: skip
COMPOSITIONS = (
    "close-up", "overhead", "top-down", "wide shot", "wide", "centered", "symmetrical",
    "asymmetrical", "bust", "full-body", "low angle", "straight-on", "front view", "panoramic",
    "portrait orientation", "landscape", "square", "off-center", "rule of thirds", "macro",
)  # fmt: skip
LIGHTINGS = (
    "soft light", "soft lighting", "natural light", "backlit", "golden hour", "harsh",
    "dramatic", "rim light", "studio lighting", "diffused", "glow", "glowing", "neon light",
    "candlelight", "sunlight", "top lighting", "low-key", "high-key", "flat lighting", "dim",
)  # fmt: skip

# Image roles: first matching words win; the default depends on the section.
IMAGE_ROLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "hero background",
        (
            "background image",
            "background photo",
            "background illustration",
            "full-bleed",
            "behind the hero",
            "backdrop",
            "as the background",
            "fills the background",
            "covers the entire",
            "full-width background",
        ),
    ),
    ("portrait", ("portrait", "headshot", "bust", "profile photo", "avatar")),
    ("product shot", ("product", "packshot", "bottle", "package", "device mockup")),
    ("thumbnail", ("thumbnail", "thumbnails", "preview")),
    ("icon/accent", ("icon", "badge", "emblem", "sticker", "ornament", "doodle")),
    ("illustration", ("illustration", "drawing", "vector", "diagram")),
    ("photo", ("photo", "photograph", "photography", "shot", "scene")),
)
# Aspect cues → display aspect "w:h" (the generated size follows: wide, tall or square).
# Explicit words are read in the first sentence about the element; the weak ones (which also
# name subjects: "a tall lighthouse", "a round table") only in its mention ("a tall photo").
ASPECT_STRONG: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("1:1", ("square", "1:1", "square-format", "square format")),
    ("16:9", ("16:9", "widescreen")),
    ("21:9", ("21:9", "ultra-wide", "ultrawide")),
    ("3:1", ("banner", "panoramic", "panorama")),
    ("4:3", ("4:3",)),
    ("3:2", ("3:2", "landscape-oriented", "landscape orientation", "horizontal format")),
    ("9:16", ("9:16",)),
    ("3:4", ("3:4",)),
    ("4:5", ("4:5",)),
    ("2:3", ("2:3", "portrait-oriented", "portrait orientation", "vertically oriented",
             "taller than it is wide", "vertical format")),
)  # fmt: skip
ASPECT_WEAK: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("1:1", ("circle", "circular", "round", "icon", "avatar", "badge")),
    ("2:3", ("portrait", "tall", "vertical", "headshot", "bust")),
    ("3:2", ("wide", "landscape", "full-width")),
)
# Size cues (in the element's mention) → display size class.
SIZE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("full", ("full-width", "full width", "full-bleed", "edge-to-edge", "full-page")),
    ("thumbnail", ("thumbnail", "thumbnails", "icon-sized")),
    ("small", ("small", "little", "compact", "tiny", "mini", "modest")),
    ("large", ("large", "big", "oversized", "huge", "giant", "dominant", "prominent")),
)
VIDEO_MOTION_MEDIUM = ("dynamic", "energetic", "fast", "quick", "jump cuts", "montage", "pulsing")
CAMERA_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("slow pan", ("pan", "panning", "dolly", "tracking", "gliding", "drifting", "drone")),
    ("subtle zoom", ("zoom", "push-in", "push in", "ken burns")),
)

# Parts a short brief lists ("with a hero photo, a gallery of six photos and a contact form"), in
# priority order: the first key whose words occur in a part names it (planner_brief).
BRIEF_PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("footer", ("footer",)),
    ("header", ("header", "navigation bar", "nav bar", "navbar", "top bar", "navigation")),
    ("hero", ("hero", "splash", "above the fold", "banner")),
    ("gallery", ("gallery", "lookbook", "mosaic", "portfolio grid", "showcase", "selected work")),
    ("chart", ("chart", "graph", "histogram", "sparkline")),
    ("video", ("video", "videos", "footage", "clip", "reel")),
    ("menu", ("menu", "price list", "drinks list", "wine list")),
    ("hours", ("opening hours", "opening times", "hours", "opening days")),
    ("faq", ("faq", "faqs", "frequently asked questions", "questions and answers", "q&a")),
    ("form", ("form", "sign-up", "signup", "newsletter", "rsvp", "enquiry", "inquiry",
              "booking", "reservation", "reservations", "contact")),
    ("testimonials", ("testimonial", "testimonials", "reviews", "review", "kind words")),
    ("pricing", ("pricing", "prices", "packages", "plans", "tiers", "rates", "tickets")),
    ("features", ("feature", "features", "benefits", "services", "highlights", "what we offer")),
    ("team", ("team", "staff", "founders", "people", "meet the")),
    ("stats", ("stats", "statistics", "numbers", "kpi", "kpis", "kpi tiles", "metrics",
               "counters")),
    ("timeline", ("timeline", "schedule", "agenda", "itinerary", "programme", "program")),
    ("about", ("about", "story", "our story", "mission", "bio", "biography", "introduction")),
    ("cta", ("call to action", "call-to-action", "cta")),
    ("logos", ("logos", "client logos", "logo wall", "logo strip", "trusted by")),
    ("table", ("table", "data table")),
    ("map", ("map", "location map", "directions", "find us")),
    ("image", ("photo", "photos", "image", "images", "picture", "illustration",
               "product shot")),
)  # fmt: skip

# Sample copy for the parts of a short brief that the brief gives no words for (planner_brief):
# plain, honest stand-ins built from the brief's own subject ("{noun}"), never filler text.
BRIEF_FEATURE_ANGLES = (
    ("What it does best", "what {noun} does best"),
    ("Made to last", "what {noun} is made of and how long it lasts"),
    ("Easy every day", "how {noun} fits into an ordinary day"),
    ("Thoughtful details", "the small details that make {noun} pleasant to use"),
    ("Looking after it", "how to care for {noun}"),
    ("In the box", "what comes with {noun}"),
)
BRIEF_TIERS = (("Essential", 29), ("Classic", 59), ("Complete", 99), ("Signature", 149),
               ("Premium", 199), ("Custom", 299))  # fmt: skip
BRIEF_MENU_KINDS = ("House", "Seasonal", "Classic", "Signature", "Daily", "Special")
BRIEF_HOURS = (("Monday – Friday", "7:00 – 18:00"), ("Saturday", "8:00 – 16:00"),
               ("Sunday", "Closed"))  # fmt: skip
BRIEF_TESTIMONIALS = (
    "A few words from a happy client about {noun}.",
    "A second client on what stood out about {noun}.",
    "A third voice on why they would recommend {noun}.",
)
BRIEF_FAQ = ("What makes {noun} different?", "How much does it cost?",
             "How long does delivery or booking take?", "How can I get in touch?",
             "Can I change or cancel?", "Where are you based?")  # fmt: skip
# A form's purpose → (section title, field labels, submit button).
BRIEF_FORMS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "booking": ("Booking", ("Name", "Email", "Date", "Message"), "Request a booking"),
    "newsletter": ("Stay in touch", ("Email",), "Subscribe"),
    "rsvp": ("RSVP", ("Name", "Email", "Guests"), "Send RSVP"),
    "contact": ("Get in touch", ("Name", "Email", "Message"), "Send message"),
}
# A table the brief names but gives no rows for: (what it lists, its columns); the first whose
# word the brief uses, else the last. Its rows are sample rows and the page says so.
BRIEF_TABLES = (
    ("order", ("Order", "Customer", "Date", "Total")),
    ("customer", ("Customer", "Email", "Orders", "Spent")),
    ("", ("Item", "Date", "Status", "Amount")),
)
# A hero's second button, to the first of these parts the brief lists.
BRIEF_LINKS = {"menu": "See the menu", "pricing": "See pricing", "gallery": "See the gallery",
               "features": "See features"}  # fmt: skip
