"""Sphinx configuration for the self-learner website (built by ``autograder/course/site.py``).

The build runs fully offline: notebooks are executed locally by myst-nb, MathJax 3 is served
from ``_static/mathjax`` (copied there by ``autograder.course.site`` from the
``sphinx-mathjax-offline`` package), and nothing refers to a CDN.
"""

project = "reftensor"
author = "reftensor course"
copyright = "reftensor course authors"  # noqa: A001 (the name Sphinx reads)
html_title = "reftensor: how PyTorch works inside"

extensions = ["myst_nb"]

exclude_patterns = [
    "_build",
    "_doctrees",
    "_ipython",
    "jupyter_execute",
    "**.ipynb_checkpoints",
]

# --- MyST: `$...$` and `$$...$$` math, plus bare amsmath environments (align, ...).
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3

# --- Notebooks: run every demo cell at build time; any error fails the build.
nb_execution_mode = "force"
nb_execution_timeout = 120  # seconds per cell
# A failing cell is reported as a warning with its traceback; `-W` turns it into an error
# (and --keep-going still reports every failing notebook in one run).
nb_execution_raise_on_error = False
nb_execution_show_tb = True
nb_execution_in_temp = False  # run in the chapter folder, like a reader would
nb_merge_streams = True
nb_ipywidgets_js = {}  # the default loads require.js and widget managers from CDNs

# --- MathJax 3 from a local copy (no CDN); relative paths are under _static/.
# SVG output needs no web fonts, so math also renders when a page is opened from file://.
mathjax_path = "mathjax/tex-svg.js"
mathjax3_config = {
    "svg": {"fontCache": "global"},
    # MyST adds "options.processHtmlClass" so that only its math nodes are typeset.
}

# --- Theme: sphinx-book-theme, with nothing that needs the network.
html_theme = "sphinx_book_theme"
html_static_path = ["_static"]
html_css_files = ["site.css"]
html_theme_options = {
    "home_page_in_toc": False,
    "show_toc_level": 2,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "use_issues_button": False,
    "use_edit_page_button": False,
    "launch_buttons": {},
    "navigation_with_keys": False,
}
html_show_sourcelink = False
html_copy_source = True  # lets readers download the (prepared) notebook

# No sphinx.ext.intersphinx (it downloads inventories) and no other networked extension.
