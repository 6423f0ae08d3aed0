"""How a fitted table shares its room while it has no rows (`shared_widths`, a plain
function): every column has air about its title, none more than its cells will want, the
table no wider than the room."""

from __future__ import annotations

from freightdesk.ui.widgets.item_table import shared_widths

# The Volume LTL quotes at 1366 px: their titles' widths, their quotes' text's.
TITLES = [47, 50, 46, 34, 56, 93, 41]
CELLS = [150, 80, 105, 100, 65, 140, 100]


def test_the_room_left_is_shared_evenly_up_to_what_each_column_wants() -> None:
    widths = shared_widths(CELLS, TITLES, 556)
    assert sum(widths) <= 556
    # "Linear ft" wants 9 px more and has them; the others have 30 px more each (or all
    # they want: "Service" 30), none its title's width alone.
    assert widths == [77, 80, 76, 64, 65, 123, 71]


def test_room_for_every_cell_gives_each_what_it_wants() -> None:
    assert shared_widths(CELLS, TITLES, 2000) == CELLS


def test_no_room_left_keeps_the_titles() -> None:
    assert shared_widths(CELLS, TITLES, 300) == TITLES
    assert shared_widths(CELLS, TITLES, sum(TITLES)) == TITLES
