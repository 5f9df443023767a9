"""The applications' quality metrics on cases with known answers."""

import math

import numpy as np
import pytest

from examples.apps import image, quality


def test_identical_images_have_infinite_psnr_and_ssim_one():
    picture = image.camera()
    assert quality.psnr(picture, picture) == math.inf
    assert quality.ssim(picture, picture) == pytest.approx(1.0, abs=1e-12)


def test_psnr_of_a_constant_error():
    picture = image.camera().astype(np.int64)
    shifted = picture.copy()
    shifted[::2] += 5          # half the pixels off by 5: MSE 12.5
    assert quality.psnr(picture, shifted) == pytest.approx(10 * math.log10(255 ** 2 / 12.5))


def test_ssim_agrees_with_scikit_image():
    metrics = pytest.importorskip("skimage.metrics")
    picture = image.camera().astype(np.float64)
    rng = np.random.default_rng(3)
    noisy = np.clip(picture + rng.normal(0, 12, picture.shape), 0, 255)
    expected = metrics.structural_similarity(picture, noisy, data_range=255)
    assert quality.ssim(picture, noisy) == pytest.approx(expected, rel=1e-9)
    assert quality.ssim(picture, noisy) < 0.9


def test_ssim_of_an_inverted_image_is_negative():
    picture = image.camera().astype(np.float64)
    assert quality.ssim(picture, 255 - picture) < 0


def test_metrics_reject_shape_mismatches():
    with pytest.raises(ValueError, match="shapes differ"):
        quality.psnr(np.zeros((4, 4)), np.zeros((4, 5)))
    with pytest.raises(ValueError, match="at least 7 x 7"):
        quality.ssim(np.zeros((4, 4)), np.zeros((4, 4)))


def test_identical_beats_give_f1_one():
    beats = [100, 260, 431, 600]
    scores = quality.match_beats(beats, beats, tolerance=10)
    assert scores["f1"] == scores["sensitivity"] == scores["positive_predictivity"] == 1.0


def test_beats_within_tolerance_match_and_others_count_as_errors():
    reference = [100, 260, 431, 600]
    detected = [110, 249, 600, 800]     # 100 matched at +10; 260 missed (-11); 431 missed; 800 false
    scores = quality.match_beats(reference, detected, tolerance=10)
    assert (scores["tp"], scores["fn"], scores["fp"]) == (2, 2, 2)
    assert scores["sensitivity"] == 0.5 and scores["positive_predictivity"] == 0.5
    assert scores["f1"] == 0.5


def test_one_detection_matches_one_beat_only():
    scores = quality.match_beats([100, 104], [102], tolerance=10)
    assert (scores["tp"], scores["fn"], scores["fp"]) == (1, 1, 0)


def test_no_beats_on_either_side():
    assert quality.match_beats([], [], tolerance=10)["f1"] == 1.0
    assert quality.match_beats([5], [], tolerance=10)["f1"] == 0.0


@pytest.mark.parametrize("c", [0.0, 0.25, 3.0])
def test_a_trajectory_offset_by_a_constant_has_that_rmse(c):
    rng = np.random.default_rng(4)
    path = rng.normal(0, 50, (200, 2))
    assert quality.rmse(path, path + [c, 0]) == pytest.approx(c)
    assert quality.rmse(path, path + [0.6 * c, 0.8 * c]) == pytest.approx(c)


def test_rmse_of_scalar_series():
    assert quality.rmse([1.0, 2.0, 3.0], [2.0, 3.0, 4.0]) == pytest.approx(1.0)
