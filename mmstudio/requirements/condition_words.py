"""The words :func:`~.conditions.read_condition` reads FronTalk conditions by: what no rule
reads (:data:`UNREAD`, and the parts that read some of those words after all), the homepage,
control nouns around a quoted name, page and section names, unquoted feature names.
"""

from __future__ import annotations

import re

#: words whose claim no rule reads (matched whole, outside quotes) → the reading is partial
UNREAD = re.compile(
    r"\b(?:hover\w*|animat\w*|transitions?|fad(?:e|es|ing)|slid(?:e|es|ing)|rotat\w*|glow\w*"
    r"|pulse|tooltips?|icons?|badges?|emoji\w*|avatars?|rounded|circular|corners?|textur\w*"
    r"|patterns?|overlays?|overlaid|semi-transparent|translucent|italic\w*|legib\w*|readab\w*"
    r"|elegant|playful|modern|professional|clean|calm\w*|sooth\w*|soft|warm|vibrant|colou?rful"
    r"|eye-catching|high-quality|decorative|distinct(?:ive|ly)?|distinguish\w*|prominent\w*"
    r"|uniform\w*|smooth\w*|seamless\w*|engag\w*|interactive|dynamic\w*|intuitive|eas(?:y|ily)"
    r"|instant\w*|random\w*|relevant|placeholder|mock|sample|every|all|multiple|several"
    r"|various|different|at least|up to|chronolog\w*|ordered|order|themes?|reflect\w*|style[ds]?"
    r"|each|cards?|tiles?|alternat\w*|scroll\w*|arrows?|dots|indicators?|cursor|move|use[sd]?|using"
    r"|click\w*|select(?:s|ed)?|pre-selected|enter(?:s|ed|ing)?|typ(?:e|es|ing)|reopen\w*"
    r"|navigat(?:e|es|ed|ing)|leads?|directs?|redirects?|opens?|returns?|accessible|access(?:ing)?"
    r"|styling|shadows?|borders?|gradient|divid\w*|scroll(?:s|ing)? (?:through|between)|zoom\w*"
    r"|expand\w*|collaps\w*|drag\w*|upload\w*|download\w*|shar(?:e|es|ing)|vot(?:e|es|ing)"
    r"|delet\w*|remov\w*|edit\w*|reply|replies|reminders?|persist\w*|updat(?:e|es|ed|ing)"
    r"|results?|categori[sz]ed|functional\w*|feedback|observe|inspect\w*|examin\w*|content of"
    r"|check the (?:styling|style|content|consistency|design|visual\w*|functionality|look)"
    r"|navigation (?:back )?to|sharing|share|automatic\w*|reveal\w*|ticker"
    r"|information|details|profiles?|sorted|sorts?|sorting|filter(?:s|ed|ing)? (?:by|the|events"
    r"|content|articles|initiatives|policies)|(?:can|to) (?:filter|search|rate|review|post"
    r"|comment|login|log in|register|book|play|print|verify|save|track|compare|browse|find"
    r"|explore|manage|view|read|see|write|perform|use|select|toggle|input|complete)"
    r"|allows?|lets|enabl\w+ users? to (?!enter)|timeline|ratings?|stars?|spacing|spaced|align\w*"
    r"|consistent\w*|evenly|equal|matches|complement\w*|visually|clearly|brief|short|lists?|listings?"
    r"|selectab\w*|selecting|thumbnails?|enhanc\w*|scor(?:e|es|ing)|complet\w*|prompt\w*|upon|after"
    r"|before|once|until|previous\w*|still|again|away|visual|indicat\w*|active|images?|photos?"
    r"|pictures?|photograph\w*|illustrations?|submit\w*|filters?|filtering|physical|examples?"
    r"|descriptions?|summar(?:y|ies)|excerpts?|displaying|showing|featuring|containing|where"
    r"|highlight\w*|compared|entr(?:y|ies)|provid\w*|predict\w*|top|bottom|left|right|below|beneath"
    r"|above|next to|beside|alongside|cent(?:er|re)(?:ed)?|positioned|placed|located)\b",
    re.I,
)
#: unread words a part reads after all (a grid part reads "consistent spacing" …)
READ_BY = {
    "text:paragraph": r"brief|short|descriptions?|summar(?:y|ies)|excerpts?",
    "text:section": r"brief|short|ticker",
    "contrast": r"distinct\w*|visually|clearly|styled|style[ds]?|use[sd]?|compared",
    "columns": r"results?|filters?|left|right",
    "widget:carousel": r"multiple",
    "font": r"clean|legib\w*|readab\w*|elegant|modern|styled|overlaid|use[sd]?",
    "weight": r"use[sd]?|elegant|modern|clean",
    "image": r"images?|photos?|pictures?|photograph\w*|illustrations?|eye-catching|high-quality"
    r"|thumbnails?",
    "colour": r"calm\w*|sooth\w*|soft|vibrant|use[sd]?",
    "navigate": r"navigat\w*|leads?|directs?|redirects?|opens?|returns?|accessible|access\w*"
    r"|using|use",
    "navigate:clicked": r"click\w*|lists?|listing|displaying|showing|featuring|containing",
    "widget:select": r"filters?|filtering",
    "submit": r"click\w*|enter\w*|typ\w*|submit\w*|upon|after|once",
    "reveal": r"click\w*|reveal\w*",
    "field": r"enter\w*|typ\w*",
    "field:upload": r"upload\w*",
    "layout:header": r"scroll\w*|top",
    "position": r"top|bottom|left|right|below|beneath|above|cent(?:er|re)(?:ed)?|positioned|placed"
    r"|located",
    "grid": r"consistent\w*|uniform\w*|spacing|spaced|align\w*|evenly|equal|thumbnails?|cards?"
    r"|tiles?|each",
    "widget:radio": r"multiple",
    "hover": r"hover\w*|enlarg\w*|scal\w*|zoom\w*|elevat\w*|lift\w*|shadows?|glow\w*|bright\w*"
    r"|underlin\w*|rotat\w*|borders?|highlight\w*|reveal\w*|smooth\w*|transitions?|upon|results"
    r"|interactive|dynamic\w*|visual|effects?",
    "icon": r"icons?|emoji\w*",
    "rounded": r"rounded|circular|corners?|avatars?",
    "border": r"borders?",
    "shadow": r"shadows?",
    "gradient": r"gradient",
    "items": r"each|every|all|cards?|tiles?|entr(?:y|ies)|lists?|listings?|thumbnails?"
    r"|descriptions?|summar(?:y|ies)|excerpts?|brief|short|ratings?|stars?|images?|photos?"
    r"|pictures?|photograph\w*|illustrations?|displaying|showing|featuring|containing",
    "widget:contact": r"information|details|physical",
    "any": r"clearly|prominent\w*|visually|functionality",
    "widget:filter": r"filters?|filtering|filter(?:s|ed|ing)? (?:by|the|events|content|articles"
    r"|initiatives|policies)|categori[sz]ed|(?:can|to) filter|selecting|selectab\w*|results?",
    "motion": r"animat\w*|transitions?|fad(?:e|es|ing)|slid(?:e|es|ing)|smooth\w*|upon|loads?"
    r"|subtle|effects?|gradual\w*|quick\w*|seamless\w*|dynamic\w*",
}
HOME = re.compile(r"\b(?:home ?page|home page|landing page|main page|front page)\b", re.I)
CONTROL_NOUN = re.compile(
    r"^\W{0,3}\s*(buttons?|btn|links?|menu items?|menu links?|nav(?:igation)? links?|tabs?"
    r"|options?|sorting options?|filters?|dropdown(?: menu)?|menus?|toggles?|icons?)\b",
    re.I,
)
CONTROL_BEFORE = re.compile(
    r"\b(buttons?|links?|menu items?|tabs?|options?|menus?)\s+(?:labell?ed|titled|named|called"
    r"|for|to|like|reading|such as)?\s*(?:the\s+)?:?\s*\W?$",
    re.I,
)
PAGE_AFTER = re.compile(r"^\W{0,3}\s*pages?\b", re.I)
SECTION_AFTER = re.compile(
    r"^\W{0,3}\s*(?:section|feature|area|segment|portal|tool|page|sidebar|panel|heading|title"
    r"|banner|carousel|list|system|directory|library|archive|form|tracker|calendar)s?\b",
    re.I,
)
_NAME_WORD = r"(?!(?:on|in|the|of|at|to|a|an|and|from|is|are|with)\b)[\w'&/-]+\s+"
PAGE_WORDS = re.compile(
    r"\b(on|in|within|at|of|from|to|into|the)\s+(?:the\s+|a\s+|an\s+|each\s+|every\s+|any\s+)?"
    rf"({_NAME_WORD}(?:(?:and\s+|&\s+)?{_NAME_WORD}){{0,4}}?)pages?\b",
    re.I,
)


FEATURE = re.compile(
    r"\b(?:[Tt]he|[Aa]n?|its)\s+([A-Z][\w&'-]*(?:\s+(?:(?:and|&|of|for)\s+)?[A-Z][\w&'-]*){1,6})"
    r"|\b[Tt]he\s+((?:(?!(?:the|of|a|an|in|on|to|at|with|for)\b)[a-z][\w'-]*\s+){1,4}?)"
    r"(section|directory|library|archive|dashboard"
    r"|calendar|forum|center|centre|gallery|portal|tracker|digest|guide)\b",
)


GENERIC = re.compile(
    r"^(?:search results?|results|main content|content|navigation|header|footer|hero|page"
    r"|user|users|list|each|comment|rating|review|filter)$",
    re.I,
)
