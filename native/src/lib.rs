//! `lagassign._native`: the sidecar's compiled half.
//!
//! `assignment_json` writes an answer's `assignment` JSON straight from the owner array of
//! the balanced strategy (owner member number per flat partition), instead of building a
//! dict of lists in Python and encoding it. `by_lag_order` gives each topic's partitions
//! by lag, `deal_rounds` is the balanced strategy's deal in rounds, `lower_max_lag` its
//! local moves (one typed call, `moves_call`). The work itself is pure Rust (`plan`,
//! `write`; `by_lag`, `deal` and their `packed_sort`; `moves` and what it calls); arrays
//! come in as NumPy arrays of their one dtype (rust-numpy checks it) and are read in place,
//! and results go back as new arrays: no buffer of the caller's is written.

mod by_lag;
mod changes;
mod deal;
mod input;
mod moves;
mod moves_call;
mod moves_input;
mod numerals;
mod packed_sort;
mod pair_split;
mod placement;
mod plan;
mod write;

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::by_lag::by_lag;
use crate::deal::{deal, Rounds};
use crate::input::{Form, Invalid};
use crate::moves_call::contiguous;
use crate::plan::Plan;

/// The JSON bytes of an answer's `assignment`, written from the owner array.
///
/// `owner`: int32 buffer, the member number of each flat partition, or -1 for nobody.
/// `topic_starts`: int64 buffer or list of int, T + 1 entries from 0 to len(owner).
/// `topic_keys`, `member_keys`: lists of bytes, the JSON text of each topic and member.
/// `form`: "topics" or "indexed".
#[pyfunction]
#[pyo3(signature = (owner, topic_starts, topic_keys, member_keys, form))]
fn assignment_json<'py>(
    py: Python<'py>,
    owner: &Bound<'py, PyAny>,
    topic_starts: &Bound<'py, PyAny>,
    topic_keys: &Bound<'py, PyAny>,
    member_keys: &Bound<'py, PyAny>,
    form: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let name = form
        .extract::<&str>()
        .map_err(|_| not_a_wanted(form, "form", "the str \"topics\" or \"indexed\""))?;
    let form = Form::named(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "form must be \"topics\" or \"indexed\", got {name:?}"
        ))
    })?;
    let owner = one_dimensional::<i32>(py, owner, "owner", "int32")?
        .ok_or_else(|| not_a_wanted(owner, "owner", "a one-dimensional int32 buffer"))?;
    let topic_starts = starts_of(py, topic_starts)?;
    let topic_keys = json_texts(topic_keys, "topic_keys")?;
    let member_keys = json_texts(member_keys, "member_keys")?;
    // Bytes objects are immutable and stay referenced here: their slices outlive the writing.
    let topic_texts: Vec<&[u8]> = topic_keys.iter().map(|k| k.as_bytes()).collect();
    let member_texts: Vec<&[u8]> = member_keys.iter().map(|k| k.as_bytes()).collect();
    let plan = py
        .detach(|| Plan::new(&owner, &topic_starts, &topic_texts, &member_texts, form))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    // Written straight into the bytes object: no second copy of the JSON.
    PyBytes::new_with(py, plan.json_len, |out| {
        py.detach(|| plan.write_into(out));
        Ok(())
    })
}

/// The balanced strategy's deal in rounds (`deal.rs`): the member that takes each dealt
/// partition, in the order dealt.
///
/// `lags` (int64, per flat partition) and `load` (per member, the lag it holds so far, any
/// int up to 2^127). The rounds, concatenated in the order they are dealt: `sizes` (one
/// per round), `members` and `parts` (each round's members ascending and its partitions
/// largest lag first), `sorted` (uint8, one per round: 0 to deal the round in member
/// order, else least-loaded member first); all int64 arrays but `sorted`.
#[pyfunction]
#[pyo3(signature = (lags, load, sizes, members, parts, sorted))]
fn deal_rounds<'py>(
    py: Python<'py>,
    lags: PyReadonlyArray1<'py, i64>,
    mut load: Vec<i128>,
    sizes: PyReadonlyArray1<'py, i64>,
    members: PyReadonlyArray1<'py, i64>,
    parts: PyReadonlyArray1<'py, i64>,
    sorted: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let lags = contiguous(&lags, "lags")?;
    let rounds = Rounds {
        sizes: contiguous(&sizes, "sizes")?,
        members: contiguous(&members, "members")?,
        parts: contiguous(&parts, "parts")?,
        sorted: contiguous(&sorted, "sorted")?,
    };
    let takers = py
        .detach(|| deal(&rounds, lags, &mut load))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    Ok(PyArray1::from_vec(py, takers))
}

/// Each topic's partitions by lag (`by_lag.rs`): topic by topic, each topic's flat
/// partition numbers largest lag first, equal lags by the lower number.
///
/// `lags`: int64 array, per flat partition. `topic_starts`: T + 1 ints from 0 to len(lags).
#[pyfunction]
#[pyo3(signature = (lags, topic_starts))]
fn by_lag_order<'py>(
    py: Python<'py>,
    lags: PyReadonlyArray1<'py, i64>,
    topic_starts: Vec<i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let lags = contiguous(&lags, "lags")?;
    let order = py
        .detach(|| by_lag(lags, &topic_starts))
        .map_err(|invalid: Invalid| PyValueError::new_err(invalid.0))?;
    Ok(PyArray1::from_vec(py, order))
}

/// The items of a one-dimensional buffer of `T`, copied; `None` if `value` has no such buffer.
fn one_dimensional<T: Element + Copy>(
    py: Python<'_>,
    value: &Bound<'_, PyAny>,
    name: &str,
    dtype: &str,
) -> PyResult<Option<Vec<T>>> {
    let Ok(buffer) = PyBuffer::<T>::get(value) else {
        return Ok(None);
    };
    if !in_native_byte_order(buffer.format().to_bytes()) {
        return Err(PyTypeError::new_err(format!(
            "{name} must be an {dtype} buffer in this machine's byte order, got format {:?}",
            buffer.format()
        )));
    }
    if buffer.dimensions() != 1 {
        return Err(PyTypeError::new_err(format!(
            "{name} must be a one-dimensional {dtype} buffer, got {} dimensions",
            buffer.dimensions()
        )));
    }
    buffer.to_vec(py).map(Some)
}

/// Whether a buffer's struct format string (e.g. `i`, `<i`, `>q`) is in native byte order:
/// PyO3 checks the item's kind and size, not its byte order.
fn in_native_byte_order(format: &[u8]) -> bool {
    match format.first() {
        Some(b'<') => cfg!(target_endian = "little"),
        Some(b'>' | b'!') => cfg!(target_endian = "big"),
        _ => true,
    }
}

/// `topic_starts` as int64: from an int64 buffer, or a list or tuple of int.
fn starts_of(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if let Some(starts) = one_dimensional::<i64>(py, value, "topic_starts", "int64")? {
        return Ok(starts);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value.extract::<Vec<i64>>().map_err(|err| {
            PyTypeError::new_err(format!("topic_starts must hold ints (int64): {err}"))
        });
    }
    Err(not_a_wanted(
        value,
        "topic_starts",
        "an int64 buffer or a list of int",
    ))
}

/// TypeError: `name` must be `wanted`, with the type (and numpy dtype) of what it got.
fn not_a_wanted(value: &Bound<'_, PyAny>, name: &str, wanted: &str) -> PyErr {
    let got = match value.get_type().name() {
        Ok(type_name) => type_name.to_string(),
        Err(_) => "an object of unknown type".to_owned(),
    };
    let dtype = match value.getattr("dtype") {
        Ok(dtype) => format!(" of dtype {dtype}"),
        Err(_) => String::new(),
    };
    PyTypeError::new_err(format!("{name} must be {wanted}, got {got}{dtype}"))
}

/// `value` as a list of non-empty bytes: each one JSON text written verbatim.
fn json_texts<'py>(value: &Bound<'py, PyAny>, name: &str) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let list = value
        .cast::<PyList>()
        .map_err(|_| not_a_wanted(value, name, "a list of bytes (each one's JSON text)"))?;
    let mut texts = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let text = item.cast_into::<PyBytes>().map_err(|err| {
            let got = err.into_inner().get_type().name().map(|n| n.to_string());
            PyTypeError::new_err(format!(
                "{name}[{i}] must be bytes (its JSON text), got {}",
                got.as_deref().unwrap_or("an object of unknown type")
            ))
        })?;
        if text.as_bytes().is_empty() {
            return Err(PyValueError::new_err(format!(
                "{name}[{i}] is empty: it must be JSON text such as b'\"orders\"'"
            )));
        }
        texts.push(text);
    }
    Ok(texts)
}

#[pymodule]
mod _native {
    #[pymodule_export]
    use super::assignment_json;
    #[pymodule_export]
    use super::by_lag_order;
    #[pymodule_export]
    use super::deal_rounds;
    #[pymodule_export]
    use super::moves_call::lower_max_lag;
    #[pymodule_export]
    use super::moves_call::Moved;
}
