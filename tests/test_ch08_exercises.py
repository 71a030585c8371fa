"""Chapter 8: the solution notebook's answers pass their checks on a fresh seed, typical
mistakes fail them, the references read torch's real stream, and the trusted grading pipeline
gives the solutions full points."""

from __future__ import annotations

import random
import struct

import pytest

from autograder import checks
from autograder.course import exercises, references
from autograder.course.exercises import ch08_rng
from autograder.sandbox import bwrap as sandbox
from tests.notebooks import (
    answer_namespace,
    answer_sources,
    assert_grading_full_points_and_one_loss,
    assert_mistake_fails,
    assert_solution_passes,
    hidden_pairs,
)

pytestmark = pytest.mark.ch08

CHAPTER = "ch08_rng"
NAMES = ["seed_words", "temper", "twist", "next_draws", "uniform_floats", "randint_from_draws",
         "randperm_from_draws", "normal_from_draws", "state_bytes", "order_changes",
         "multinomial_from_draws", "bernoulli_from_draws"]
FRESH_SEED = 20261122


RIGHT: dict[str, object] = answer_namespace()
for _grade_id, _text in answer_sources(CHAPTER).items():
    if _grade_id in NAMES:
        exec(compile(_text, f"<{CHAPTER}:{_grade_id}>", "exec"), RIGHT)


# ---------------------------------------------------------------- typical mistakes
def seed_words_abs(seed):
    """Drops the sign of a negative seed instead of reading it as seed + 2**64."""
    return RIGHT["seed_words"](abs(seed))


def seed_words_unchecked(seed):
    """Never refuses a seed: keeps the low 32 bits of anything."""
    return RIGHT["seed_words"](seed % 2 ** 32)


def seed_words_64_bit_first_word(seed):
    """Keeps the whole 64-bit seed in the first word."""
    return [seed % 2 ** 64] + RIGHT["seed_words"](seed)[1:]


def temper_swapped_right_shifts(y):
    """The two right shifts in each other's place (18 first, 11 last)."""
    y ^= y >> 18
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 11
    return y


def temper_left_steps_swapped(y):
    """The two masked left-shift steps in the wrong order."""
    y ^= y >> 11
    y ^= (y << 15) & 0xEFC60000
    y ^= (y << 7) & 0x9D2C5680
    y ^= y >> 18
    return y


def twist_masks_swapped(words):
    """Keeps the low 31 bits of word i and the top bit of word i + 1."""
    new = list(words)
    for i in range(624):
        y = (new[i] & 0x7FFFFFFF) | (new[(i + 1) % 624] & 0x80000000)
        new[i] = new[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    return new


def twist_without_matrix_a(words):
    """Forgets MATRIX_A for an odd y: only the shift and the XOR with word i + 397."""
    new = list(words)
    for i in range(624):
        y = (new[i] & 0x80000000) | (new[(i + 1) % 624] & 0x7FFFFFFF)
        new[i] = new[(i + 397) % 624] ^ (y >> 1)
    return new


def twist_from_old_words(words):
    """Builds a new list from the words as they were: word i + 397 is never a replaced one."""
    new = []
    for i in range(624):
        y = (words[i] & 0x80000000) | (words[(i + 1) % 624] & 0x7FFFFFFF)
        new.append(words[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0))
    return new


def twist_old_first_word_at_the_wrap(words):
    """Twists in place, but the last word reads word 0 as it was before this twist."""
    new = list(words)
    for i in range(624):
        following = words[0] if i == 623 else new[i + 1]
        y = (new[i] & 0x80000000) | (following & 0x7FFFFFFF)
        new[i] = new[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    return new


def next_draws_twist_at_word_624(words, left, position, n, twist, temper):
    """Ignores left: twists when next reaches 624 (so never first after manual_seed)."""
    draws = []
    for _ in range(n):
        if position == 624:
            words, position = twist(words), 0
        draws.append(temper(words[position]))
        position += 1
    return draws, words, 625 - position, position


def next_draws_twist_a_draw_late(words, left, position, n, twist, temper):
    """Tests left before taking one off: the twist comes one draw after torch's."""
    draws = []
    for _ in range(n):
        if left == 0:
            words, left, position = twist(words), 624, 0
        left -= 1
        draws.append(temper(words[position % 624]))
        position += 1
    return draws, words, left, position


def next_draws_counters_unchanged(words, left, position, n, twist, temper):
    """Returns the draws with the counters it was given."""
    draws = RIGHT["next_draws"](words, left, position, n, twist, temper)[0]
    return draws, words, left, position


def next_draws_untempered(words, left, position, n, twist, temper):
    """Outputs the state words as they are."""
    return RIGHT["next_draws"](words, left, position, n, twist, lambda y: y)


def next_draws_left_from_next(words, left, position, n, twist, temper):
    """Takes left as 625 - next, as if every loaded state were one torch's draws left."""
    if left != 1:
        left = 625 - position
    return RIGHT["next_draws"](words, left, position, n, twist, temper)


def uniform_high_bits(draws, dtype):
    """float32 from the high 24 bits; float64 from the high 27 + 26 bits, as NumPy does."""
    if dtype == "float64":
        return [((a >> 5) * 2 ** 26 + (b >> 6)) * 2.0 ** -53
                for a, b in zip(draws[0::2], draws[1::2], strict=True)]
    return RIGHT["uniform_floats"](tuple(d >> 8 for d in draws), dtype)


def uniform_float16_unclamped(draws, dtype):
    """Rounds to float16 but lets a value round up to 1.0."""
    if dtype != "float16":
        return RIGHT["uniform_floats"](draws, dtype)
    return [struct.unpack("e", struct.pack("e", (d % 2 ** 24) * 2.0 ** -24))[0] for d in draws]


def uniform_float64_pair_swapped(draws, dtype):
    """Builds the 64-bit value as (second << 32) | first."""
    if dtype != "float64":
        return RIGHT["uniform_floats"](draws, dtype)
    swapped = [d for a, b in zip(draws[0::2], draws[1::2], strict=True) for d in (b, a)]
    return RIGHT["uniform_floats"](tuple(swapped), dtype)


def randint_threshold_2_32(low, high, n, draws):
    """Uses one draw for every range below 2**32 instead of 2**28."""
    if 2 ** 28 <= high - low < 2 ** 32:
        return [low + d % (high - low) for d in draws[:n]]
    return RIGHT["randint_from_draws"](low, high, n, draws)


def randint_one_draw_always(low, high, n, draws):
    """Never combines two draws, whatever the range."""
    if low >= high:
        raise RuntimeError("empty range")
    return [low + d % (high - low) for d in draws[:n]]


def randint_no_refusal(low, high, n, draws):
    """Returns an empty list for an empty range instead of raising."""
    return [] if low >= high else RIGHT["randint_from_draws"](low, high, n, draws)


def randperm_from_the_end(n, draws):
    """Python's random.shuffle order: from the last position down, swapping with j <= i."""
    perm = list(range(n))
    for k, i in enumerate(range(n - 1, 0, -1)):
        j = draws[k] % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def randperm_swap_with_z(n, draws):
    """Swaps position i with position z instead of i + z."""
    perm = list(range(n))
    for i in range(n - 1):
        z = draws[i] % (n - i)
        perm[i], perm[z] = perm[z], perm[i]
    return perm


def state_bytes_zero_if_falsy(seed, words, left, position, double_normal, float_normal):
    """Writes ``double_normal or 0.0``: a cached -0.0 loses its sign (and its flag)."""
    return RIGHT["state_bytes"](seed, words, left, position, double_normal or None,
                                float_normal or None)


def state_bytes_unseeded_flag(seed, words, left, position, double_normal, float_normal):
    """Leaves the 'seeded' field at 0."""
    state = bytearray(RIGHT["state_bytes"](seed, words, left, position, double_normal,
                                           float_normal))
    state[12] = 0
    return bytes(state)


def state_bytes_signed_seed(seed, words, left, position, double_normal, float_normal):
    """Packs the seed as a signed int64 (struct raises for 2**63 and above)."""
    head = struct.pack("<qiiQ", seed, left, 1, position)
    return head + RIGHT["state_bytes"](seed, words, left, position, double_normal,
                                       float_normal)[24:]


def state_bytes_32_bit_words(seed, words, left, position, double_normal, float_normal):
    """Packs the words as 32-bit values."""
    state = RIGHT["state_bytes"](seed, words, left, position, double_normal, float_normal)
    return state[:24] + struct.pack("<624I", *words) + state[5016:]


def state_bytes_no_gap_before_the_normal(seed, words, left, position, double_normal,
                                         float_normal):
    """Writes the cached double right after the words (byte 5016, not 5024)."""
    state = bytearray(RIGHT["state_bytes"](seed, words, left, position, double_normal,
                                           float_normal))
    state[5016:5032] = state[5024:5032] + bytes(8)
    return bytes(state)


def order_dropout_always_draws(mode, run_a, run_b):
    """Counts dropout's draws even for p = 0, p = 1, eval mode or an empty input."""
    def as_training(run):
        return tuple(tuple(("dropout", 0.5, c[2], True) if c[0] == "dropout" else c
                           for c in calls) for calls in run)
    return RIGHT["order_changes"](mode, as_training(run_a), as_training(run_b))


def order_dedicated_like_global(mode, run_a, run_b):
    """Believes a dedicated data generator still shares the model's stream."""
    return RIGHT["order_changes"]("global" if mode == "dedicated" else mode, run_a, run_b)


def order_one_draw_per_call(mode, run_a, run_b):
    """Counts calls instead of draws."""
    def flat(run):
        return tuple(tuple(("rand", 1) for _ in calls) for calls in run)
    return RIGHT["order_changes"](mode, flat(run_a), flat(run_b))


def edited(name: str, old: str, new: str, label: str):
    """The solution notebook's answer to ``name`` with ``old`` replaced by ``new``."""
    text = answer_sources(CHAPTER)[name]
    assert old in text, (name, old)
    namespace = {**RIGHT}
    exec(compile(text.replace(old, new), f"<{label}>", "exec"), namespace)
    answer = namespace[name]
    answer.__name__ = label
    return answer


normal_fill_whatever_the_layout = edited(
    "normal_from_draws", "if n >= 16 and contiguous:", "if n >= 16:",
    "normal_fill_whatever_the_layout")
normal_tail_from_the_leftovers = edited(
    "normal_from_draws", "values = values[:n - 16] + block(uniforms(16))",
    "values += block(u[n - n % 16:] + uniforms(16 - n % 16))",
    "normal_tail_from_the_leftovers")
normal_cache_ignored = edited(
    "normal_from_draws", "if n > 0 and cached is not None:", "if False:",
    "normal_cache_ignored")
normal_serial_paired_as_the_fill = edited(
    "normal_from_draws",
    "r = math.sqrt(-2.0 * math.log1p(-u2))\n        theta = 2.0 * math.pi * u1",
    "r = math.sqrt(-2.0 * math.log(1.0 - u1))\n        theta = 2.0 * math.pi * u2",
    "normal_serial_paired_as_the_fill")
normal_fill_forgets_the_cache = edited(
    "normal_from_draws", "        return values, cached\n    values = []",
    "        return values, None\n    values = []", "normal_fill_forgets_the_cache")
multinomial_ties_by_index = edited(
    "multinomial_from_draws", "samples.append(list(topk(line, num_samples)))",
    "samples.append(sorted(range(len(line)), key=lambda j: -line[j])[:num_samples])",
    "multinomial_ties_by_index")
multinomial_topk_for_one_sample = edited(
    "multinomial_from_draws", "            if num_samples > 1:\n",
    "            if num_samples > 0:\n", "multinomial_topk_for_one_sample")
multinomial_nan_never_wins = edited(
    "multinomial_from_draws",
    "if not math.isnan(line[best]) and (math.isnan(score) or score > line[best]):",
    "if score > line[best]:", "multinomial_nan_never_wins")
multinomial_one_sample_searches = edited(
    "multinomial_from_draws", "if not replacement or num_samples == 1:", "if not replacement:",
    "multinomial_one_sample_searches")
multinomial_last_entry_at_u = edited(
    "multinomial_from_draws", "bisect.bisect_left(cumulative, u)",
    "bisect.bisect_right(cumulative, u)", "multinomial_last_entry_at_u")
multinomial_float64_throughout = edited(
    "multinomial_from_draws",
    'return float(np.float32(x)) if dtype == "float32" else x', "return x",
    "multinomial_float64_throughout")
multinomial_24_bit_uniforms = edited(
    "multinomial_from_draws",
    "        words = draw(2 * k)\n        return [(((words[2 * i] << 32) | words[2 * i + 1])"
    " % 2**53) * 2.0**-53\n                for i in range(k)]",
    "        return [(w % 2**24) * 2.0**-24 for w in draw(k)]", "multinomial_24_bit_uniforms")

bernoulli_number_p_as_float32 = edited(
    "bernoulli_from_draws", 'if dtype in ("float", "float64"):', 'if dtype == "float64":',
    "bernoulli_number_p_as_float32")
bernoulli_53_bits_for_float32 = edited(
    "bernoulli_from_draws", 'if dtype in ("float", "float64"):',
    'if dtype in ("float", "float64", "float32"):', "bernoulli_53_bits_for_float32")
bernoulli_24_bits_for_float64 = edited(
    "bernoulli_from_draws", 'if dtype in ("float", "float64"):', 'if dtype == "float":',
    "bernoulli_24_bits_for_float64")
bernoulli_at_or_below = edited(
    "bernoulli_from_draws", "values[i] = 1 if u < p else 0", "values[i] = 1 if u <= p else 0",
    "bernoulli_at_or_below")
bernoulli_high_bits = edited(
    "bernoulli_from_draws", "u = (draw(1)[0] % 2**24) * 2.0**-24",
    "u = (draw(1)[0] >> 8) * 2.0**-24", "bernoulli_high_bits")
bernoulli_words_swapped = edited(
    "bernoulli_from_draws", "((first << 32) | second)", "((second << 32) | first)",
    "bernoulli_words_swapped")
bernoulli_checks_every_p_first = edited(
    "bernoulli_from_draws", "    for i, p in enumerate(probs):\n",
    "    if not all(0 <= p <= 1 for p in probs):\n        raise RuntimeError(\"Expected p_in >= 0 "
    "&& p_in <= 1 to be true, but got false.\")\n    for i, p in enumerate(probs):\n",
    "bernoulli_checks_every_p_first")
bernoulli_nan_passes = edited(
    "bernoulli_from_draws", "if not 0 <= p <= 1:", "if p < 0 or p > 1:", "bernoulli_nan_passes")
bernoulli_a_new_list = edited(
    "bernoulli_from_draws", "values[i] = 1 if u < p else 0",
    "values = values[:i] + [1 if u < p else 0] + values[i + 1:]", "bernoulli_a_new_list")


WRONG = [  # (exercise, answer, whether it still passes the visible test: never)
    ("seed_words", seed_words_abs, False),
    ("seed_words", seed_words_unchecked, False),
    ("seed_words", seed_words_64_bit_first_word, False),
    ("temper", temper_swapped_right_shifts, False),
    ("temper", temper_left_steps_swapped, False),
    ("twist", twist_masks_swapped, False),
    ("twist", twist_without_matrix_a, False),
    ("twist", twist_from_old_words, False),
    ("twist", twist_old_first_word_at_the_wrap, False),
    ("next_draws", next_draws_twist_at_word_624, False),
    ("next_draws", next_draws_twist_a_draw_late, False),
    ("next_draws", next_draws_counters_unchanged, False),
    ("next_draws", next_draws_untempered, False),
    ("next_draws", next_draws_left_from_next, False),
    ("uniform_floats", uniform_high_bits, False),
    ("uniform_floats", uniform_float16_unclamped, False),
    ("uniform_floats", uniform_float64_pair_swapped, False),
    ("randint_from_draws", randint_threshold_2_32, False),
    ("randint_from_draws", randint_one_draw_always, False),
    ("randint_from_draws", randint_no_refusal, False),
    ("randperm_from_draws", randperm_from_the_end, False),
    ("randperm_from_draws", randperm_swap_with_z, False),
    ("normal_from_draws", normal_fill_whatever_the_layout, False),
    ("normal_from_draws", normal_tail_from_the_leftovers, False),
    ("normal_from_draws", normal_cache_ignored, False),
    ("normal_from_draws", normal_serial_paired_as_the_fill, False),
    ("normal_from_draws", normal_fill_forgets_the_cache, False),
    ("state_bytes", state_bytes_zero_if_falsy, False),
    ("state_bytes", state_bytes_unseeded_flag, False),
    ("state_bytes", state_bytes_signed_seed, False),
    ("state_bytes", state_bytes_32_bit_words, False),
    ("state_bytes", state_bytes_no_gap_before_the_normal, False),
    ("order_changes", order_dropout_always_draws, False),
    ("order_changes", order_dedicated_like_global, False),
    ("order_changes", order_one_draw_per_call, False),
    ("multinomial_from_draws", multinomial_ties_by_index, False),
    ("multinomial_from_draws", multinomial_topk_for_one_sample, False),
    ("multinomial_from_draws", multinomial_nan_never_wins, False),
    ("multinomial_from_draws", multinomial_one_sample_searches, False),
    ("multinomial_from_draws", multinomial_last_entry_at_u, False),
    ("multinomial_from_draws", multinomial_float64_throughout, False),
    ("multinomial_from_draws", multinomial_24_bit_uniforms, False),
    ("bernoulli_from_draws", bernoulli_number_p_as_float32, False),
    ("bernoulli_from_draws", bernoulli_53_bits_for_float32, False),
    ("bernoulli_from_draws", bernoulli_24_bits_for_float64, False),
    ("bernoulli_from_draws", bernoulli_at_or_below, False),
    ("bernoulli_from_draws", bernoulli_high_bits, False),
    ("bernoulli_from_draws", bernoulli_words_swapped, False),
    ("bernoulli_from_draws", bernoulli_checks_every_p_first, False),
    ("bernoulli_from_draws", bernoulli_nan_passes, False),
    ("bernoulli_from_draws", bernoulli_a_new_list, False),
]


# ---------------------------------------------------------------- the checks
@pytest.mark.parametrize("name", NAMES)
def test_solution_passes_visible_and_hidden_on_a_fresh_seed(name, capsys):
    checks.check(name, RIGHT[name])
    assert_solution_passes(name, RIGHT[name], capsys.readouterr().out, FRESH_SEED, 40)


@pytest.mark.parametrize("name,answer,passes_visible", WRONG,
                         ids=[f"{w[0]}-{w[1].__name__}" for w in WRONG])
def test_typical_mistakes_fail_hidden(name, answer, passes_visible):
    assert_mistake_fails(name, answer, passes_visible)


REFUSALS = {"seed_words": ["raises ValueError"], "randint_from_draws": ["raises RuntimeError"],
            "multinomial_from_draws": ["raises RuntimeError"]}


def test_hidden_cases_are_deterministic_and_reach_the_refusals():
    for name in NAMES:
        pairs = hidden_pairs(name)
        cases = [case for case, _ in pairs]
        assert cases == checks.cases(name, hidden=True) and len(cases) >= 40
        assert set(exercises.get(name).fixed) <= set(cases)
        kinds = [f"raises {e.exception}" if isinstance(e, references.Raises)
                 else type(e).__name__ for _, e in pairs]
        for refusal in REFUSALS.get(name, []):
            assert kinds.count(refusal) >= 2, (name, refusal)
        assert sum(k not in REFUSALS.get(name, []) for k in kinds) >= len(kinds) * 3 // 4, name


def test_hidden_cases_cover_the_regimes():
    """Seeds of every kind, seeded, random and hand-made words to twist, draw counts across
    twists, both randint rules, every dtype and the float16 clamp, and both answers of the order
    question."""
    seeds = [c.args[0] for c, _ in hidden_pairs("seed_words")]
    assert any(s < 0 for s in seeds) and any(2 ** 32 <= s < 2 ** 64 for s in seeds)
    made = [dict(c.context).get("made", "") for c, _ in hidden_pairs("twist")]
    assert sum(m.startswith("seed_words(") for m in made) >= 5  # words torch really holds
    assert sum(m == "" for m in made) >= 5  # random words
    assert sum(", words[" in m for m in made) >= 5  # a few notable words among equal ones
    counts = [c.args[3] for c, _ in hidden_pairs("next_draws")]
    assert any(n < 624 for n in counts) and any(n > 1248 for n in counts)
    loaded = [c for c, _ in hidden_pairs("next_draws") if c.args[1] + c.args[2] not in (1, 625)]
    assert len(loaded) >= 5  # set_state's counters
    caches = [c.args[4:] for c, _ in hidden_pairs("state_bytes")]
    assert sum(d is not None for d, _ in caches) >= 5
    assert sum(f is not None for _, f in caches) >= 5
    spans = [c.args[1] - c.args[0] for c, e in hidden_pairs("randint_from_draws")
             if not isinstance(e, references.Raises)]
    assert sum(s < 2 ** 28 for s in spans) >= 10 and sum(s >= 2 ** 28 for s in spans) >= 10
    dtypes = [c.args[1] for c, _ in hidden_pairs("uniform_floats")]
    assert all(dtypes.count(d) >= 5 for d in ("float32", "float64", "float16"))
    clamped = [c for c, e in hidden_pairs("uniform_floats") if c.args[1] == "float16"
               and any(v == 0.0 and d % 2 ** 24 for v, d in zip(e, c.args[0], strict=True))]
    assert clamped, "no case where float16 rounds up to 1.0 and torch gives 0.0"
    answers = [a for _, e in hidden_pairs("order_changes") for a in e[1:]]
    assert answers.count(True) >= 15 and answers.count(False) >= 15
    assert {c.args[0] for c, _ in hidden_pairs("order_changes")} == {"global", "dedicated",
                                                                      "reseed"}
    cases = [c for c, _ in hidden_pairs("multinomial_from_draws")]
    assert {(c.args[1], c.args[3]) for c in cases} == {(d, r) for d in ("float32", "float64")
                                                       for r in (True, False)}
    searches = [c for c in cases if c.args[3] and c.args[2] > 1]
    races = [c for c in cases if not c.args[3] or c.args[2] == 1]
    assert len(searches) >= 10 and len(races) >= 20
    assert sum(len(c.args[0]) > 1 for c in cases) >= 10
    pairs = hidden_pairs("bernoulli_from_draws")
    assert {c.args[2] for c, _ in pairs} == {"float", "float64", "float32", "float16",
                                             "bfloat16"}
    assert sum(e[1] is not None for _, e in pairs) >= 5  # a p refused as the loop reaches it
    assert {c.ctx("layout") for c, _ in pairs} == {"flat", "0-d", "transposed"}
    assert {c.ctx("self_dtype") for c, _ in pairs} >= {"bool", "int64", "float32"}
    assert any(not c.args[0] for c, _ in pairs)  # an empty self


# ---------------------------------------------------------------- the references
def test_raw_draws_read_from_torch_are_the_stream_its_functions_use():
    """``raw_from_torch`` (one torch API) agrees with ``randint(0, 2**32)`` (another), which
    returns the second draw of each pair."""
    import torch

    for seed in (0, 5, 2 ** 40 + 1):
        raw = ch08_rng.raw_from_torch(torch, torch.Generator().manual_seed(seed), 1300)
        seconds = torch.randint(0, 2 ** 32, (650,), generator=torch.Generator().manual_seed(seed))
        assert raw[1::2] == seconds.tolist()


def test_injected_draws_are_the_generators_next_draws():
    """The generator the draw-based exercises use really draws ``draws``, read back from
    torch; and the temper reference on a seeded generator's word is that word's real draw."""
    import torch

    rng = random.Random(8)
    draws = tuple(rng.getrandbits(32) for _ in range(623))
    for chosen in (draws, (0, 2 ** 32 - 1, 2 ** 24 - 1), ()):
        g = ch08_rng.generator_with_draws(torch, chosen)
        assert ch08_rng.raw_from_torch(torch, g, len(chosen)) == list(chosen)
    for seed in (1, 99):
        g = torch.Generator().manual_seed(seed)
        torch.rand(3, generator=g)  # twisted; next is 3
        word = struct.unpack_from("<624Q", ch08_rng.state_of(g), 24)[3]
        temper = exercises.get("temper")
        assert references.compute(temper, [exercises.Case(args=(word,))]) == \
            ch08_rng.raw_from_torch(torch, g, 1)


def test_twist_reference_is_the_twist_torch_runs_as_it_draws():
    """The twist reference (words put in a state with ``left = 1``) gives the words torch
    holds after the first draw and after the 625th of a seeded generator; and the words of
    a case made "after 624 draws" are the seeded words twisted once."""
    import torch

    twist = exercises.get("twist")
    for seed in (0, 42, 2 ** 32 - 1):
        g = torch.Generator().manual_seed(seed)
        seeded = list(struct.unpack_from("<624Q", ch08_rng.state_of(g), 24))
        torch.rand(1, generator=g)
        once = list(struct.unpack_from("<624Q", ch08_rng.state_of(g), 24))
        torch.rand(624, generator=g)
        twice = list(struct.unpack_from("<624Q", ch08_rng.state_of(g), 24))
        assert ch08_rng._seeded_words(seed) == tuple(seeded)
        assert ch08_rng._seeded_words(seed, 624) == tuple(once)
        assert references.compute(twist, [ch08_rng._twist_case(tuple(seeded)),
                                          ch08_rng._twist_case(tuple(once))]) == [once, twice]


def test_next_draws_reference_is_a_real_generators_stream():
    """The next_draws reference (a state loaded with set_state) gives the draws and the state
    of a generator that got there by manual_seed and draws: the seeded cases' words and
    counters are the real ones, and so is what follows."""
    import torch

    for seed, before, n in ((0, 0, 5), (2 ** 64 - 1, 1, 700), (42, 623, 2), (7, 1248, 1250)):
        case = ch08_rng._seeded_case(seed, before, n)
        g = torch.Generator().manual_seed(seed)
        torch.rand(before, generator=g)
        _, left, _, nxt, words = ch08_rng._state_fields(ch08_rng.state_of(g))
        assert case.args[:3] == (words, left, nxt)
        draws = ch08_rng.raw_from_torch(torch, g, n)
        g = torch.Generator().manual_seed(seed)
        torch.rand(before + n, generator=g)
        _, left, _, nxt, words = ch08_rng._state_fields(ch08_rng.state_of(g))
        assert references.compute(exercises.get("next_draws"), [case]) == [
            (draws, list(words), left, nxt)]


def test_grading_twist_and_temper_are_right():
    """next_draws is graded with NumPy's twist and tempering: they are the reference's."""
    from reftensor.random import generator

    rng = random.Random(3)
    for words in (ch08_rng._seeded_words(5), tuple(rng.getrandbits(32) for _ in range(624))):
        assert ch08_rng.numpy_twist(words) == generator.twist(words)
    for y in (0, 1, 2 ** 32 - 1, 0x80000000, *(rng.getrandbits(32) for _ in range(50))):
        assert ch08_rng.numpy_temper(y) == generator.temper(y)


def test_state_bytes_reference_is_a_real_generators_state():
    """The state_bytes reference (fields loaded with set_state, every unread byte 0xa5) is
    get_state() of a generator that got there itself: seeded, after draws, with a cached
    normal from randn's element-by-element path."""
    import torch

    for seed, before, normal in ((0, 0, False), (2 ** 64 - 1, 624, True), (2 ** 40 + 3, 5, True)):
        g = torch.Generator().manual_seed(seed)
        torch.rand(before, generator=g)
        if normal:
            torch.randn(1, dtype=torch.float64, generator=g)  # caches the second normal
        state = ch08_rng.state_of(g)
        _, left, _, nxt, words = ch08_rng._state_fields(state)
        double = struct.unpack_from("<d", state, 5024)[0] if normal else None
        case = ch08_rng._state_case(seed, words, left, nxt, double, None, "")
        assert references.compute(exercises.get("state_bytes"), [case]) == [list(state)]


def test_seed_words_reference_reads_torch_state_bytes():
    """The words sit at byte 24 of the state: NumPy's legacy seeding of the low 32 bits, a
    second implementation of mt19937's seeding, gives the same words."""
    import numpy as np

    for case, words in hidden_pairs("seed_words")[:20]:
        if isinstance(words, list):
            legacy = np.random.RandomState(case.args[0] % 2 ** 32).get_state()[1]
            assert words == legacy.tolist()


def test_different_stream_positions_give_different_permutations():
    """order_changes says an epoch's order changes exactly when its randperm starts elsewhere
    in the stream: true for every start a case can reach (fewer than 400 draws in)."""
    import torch

    seen = set()
    g = torch.Generator()
    for start in range(400):
        g.manual_seed(0)
        torch.rand(start, generator=g)
        seen.add(tuple(torch.randperm(ch08_rng.ITEMS, generator=g).tolist()))
    assert len(seen) == 400


# ---------------------------------------------------------------- the grading pipeline
@pytest.mark.grading
@pytest.mark.slow
@pytest.mark.skipif(not sandbox.status().available,
                    reason=f"no sandbox: {sandbox.status().reason}")
def test_grading_gives_the_solutions_full_points_and_a_mistake_loses_them(tmp_path):
    """The trusted pipeline on a fresh seed: the solution gets every automatic point; one
    typical mistake in an exercise no other answer calls loses that exercise only."""
    assert_grading_full_points_and_one_loss(tmp_path, CHAPTER, "randperm_from_draws",
                                            randperm_swap_with_z, 48)
