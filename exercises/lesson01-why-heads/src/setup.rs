//! The lesson's given code: the sentence, its tokens, the embedding, and the worked example's
//! constants and type.
//!
//! Nothing to implement here, and nothing here calls your code: the worked example is assembled
//! from your [`crate::exercises`] in [`crate::worked`].

use attention::rng::RandomState;
use ndarray::{Array2, Array3};

/// The Lantern Bay slice the lesson reads, one token per word.
pub const SENTENCE: &str = "the keeper lights the lantern when fog rolls";
/// The seed of the worked example (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Model width of the worked example.
pub const C: usize = 16;
/// Head size of the worked example.
pub const HS: usize = 8;
/// The lesson's demo init: projections drawn from `randn` are scaled by this.
pub const DEMO_SCALE: f64 = 0.3;
/// The training-style init the practice exercise compares against.
pub const SMALL_SCALE: f64 = 0.02;

/// A sentence split into words, with a sorted vocabulary and the token id of every word.
#[derive(Debug, Clone, PartialEq)]
pub struct Sentence {
    /// The words in order, `T` of them.
    pub words: Vec<String>,
    /// The distinct words, sorted.
    pub vocab: Vec<String>,
    /// `ids[t]` is the vocabulary index of `words[t]`; length `T`.
    pub ids: Vec<usize>,
}

impl Sentence {
    /// Splits `text` on whitespace and numbers the sorted distinct words.
    pub fn tokenize(text: &str) -> Self {
        let words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        let mut vocab = words.clone();
        vocab.sort();
        vocab.dedup();
        let ids = words
            .iter()
            .map(|w| {
                vocab
                    .binary_search(w)
                    .expect("every word is in the vocabulary")
            })
            .collect();
        Self { words, vocab, ids }
    }

    /// Number of tokens `T`.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True when the sentence has no words.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The words as string slices, the form [`crate::exercises::top_focus`] takes.
    pub fn word_refs(&self) -> Vec<&str> {
        self.words.iter().map(String::as_str).collect()
    }

    /// Looks every token up in the embedding table `emb` `(V, C)`: returns `X` as `(1, T, C)`.
    pub fn embed(&self, emb: &Array2<f64>) -> Array3<f64> {
        let c = emb.ncols();
        Array3::from_shape_fn((1, self.len(), c), |(_, t, j)| emb[[self.ids[t], j]])
    }
}

/// One head's projections, each `(C, hs)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    /// Query projection `(C, hs)`.
    pub wq: Array2<f64>,
    /// Key projection `(C, hs)`.
    pub wk: Array2<f64>,
    /// Value projection `(C, hs)`.
    pub wv: Array2<f64>,
}

/// Everything the worked example builds, in the order it draws from the generator.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// The tokenized sentence (T = 8).
    pub sentence: Sentence,
    /// The embedded input `X`, `(1, T, C)`.
    pub x: Array3<f64>,
    /// Head A, drawn right after the embedding table.
    pub head_a: Head,
    /// Head B, drawn right after head A.
    pub head_b: Head,
    /// The generator, positioned right after head B (ready to draw a third head).
    pub rng: RandomState,
}
