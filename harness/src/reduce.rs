//! An Nsight Compute source-page export (`ncu -i rep --page source --csv --print-source
//! cuda,sass`) reduced to one row per (launch, file, line, memory space, operation): requests
//! (warp-level instructions executed), "L2 Theoretical Sectors Global" and its ideal, and for
//! shared memory "L1 Wavefronts Shared" and its ideal, summed over the SASS instructions
//! attributed to that line.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One measured (launch, file, line, space, op).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasuredRow {
    /// Launch index, in profiling order from 0.
    pub launch: usize,
    /// Kernel name (demangled, without parameters).
    pub kernel: String,
    /// Source file of the line.
    pub file: String,
    /// Source line.
    pub line: usize,
    /// `global`, `shared`, `local` or `generic`.
    pub space: String,
    /// `load`, `store` or `atomic`.
    pub op: String,
    /// Bytes per lane of the instructions (the widest).
    pub access_bytes: u64,
    /// SASS instructions attributed to the line.
    pub instructions: u64,
    /// Warp-level executions summed over those instructions.
    pub requests: u64,
    /// L2 theoretical sectors, global.
    pub sectors: u64,
    /// The same if perfectly coalesced.
    pub ideal_sectors: u64,
    /// Shared-memory wavefronts (absent from exports and recordings made without them).
    #[serde(default)]
    pub wavefronts: u64,
    /// The same without bank conflicts.
    #[serde(default)]
    pub ideal_wavefronts: u64,
    /// Source text of the line.
    pub source: String,
}

impl MeasuredRow {
    /// Sectors per request, rounded to two decimals.
    pub fn sectors_per_request(&self) -> f64 {
        round2(self.sectors as f64 / self.requests.max(1) as f64)
    }

    /// Ideal sectors per request, rounded to two decimals.
    pub fn ideal_sectors_per_request(&self) -> f64 {
        round2(self.ideal_sectors as f64 / self.requests.max(1) as f64)
    }

    /// Shared-memory wavefronts per request, to three decimals (the excess over a whole
    /// number is what the comparison's tolerance is about).
    pub fn wavefronts_per_request(&self) -> f64 {
        (self.wavefronts as f64 / self.requests.max(1) as f64 * 1000.0).round() / 1000.0
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn number(text: &str) -> f64 {
    text.replace(',', "").trim().parse().unwrap_or(0.0)
}

/// Reduces an export; an error names the line of the export that could not be read.
pub fn reduce(export: &str) -> Result<Vec<MeasuredRow>, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(export.as_bytes());
    let mut rows: Vec<MeasuredRow> = Vec::new();
    let mut index: BTreeMap<(usize, usize, String, String, String), usize> = BTreeMap::new();
    let mut launch: Option<usize> = None;
    let mut kernel = String::new();
    let mut file = String::new();
    let mut header: Vec<String> = Vec::new();
    let mut line: Option<(usize, String)> = None;
    let mut seen_addresses = std::collections::HashSet::new();
    let mut files_of_launch = std::collections::HashSet::new();
    for (n, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("export line {}: {e}", n + 1))?;
        let cells: Vec<&str> = record.iter().collect();
        let Some(first) = cells.first() else { continue };
        match *first {
            "File Path" => {
                file = cells.get(1).unwrap_or(&"").to_string();
                continue;
            }
            "Function Name" => {
                // A launch is listed as one section per source file it has code in; the same
                // function and a file not yet seen continue it, anything else starts the next.
                let name = demangled_name(cells.get(1).unwrap_or(&""));
                if launch.is_none() || name != kernel || !files_of_launch.insert(file.clone()) {
                    launch = Some(launch.map_or(0, |l| l + 1));
                    files_of_launch.clear();
                    files_of_launch.insert(file.clone());
                    seen_addresses.clear();
                }
                kernel = name;
                continue;
            }
            "Line No" | "# Address" | "Address" => {
                header = cells.iter().map(|c| c.to_string()).collect();
                continue;
            }
            _ => {}
        }
        if header.is_empty() || cells.len() != header.len() {
            continue;
        }
        let Some(launch) = launch else { continue };
        if !first.trim().is_empty() {
            if let Ok(number) = first.trim().parse::<usize>() {
                line = Some((number, cells.get(1).unwrap_or(&"").trim().to_string()));
            }
            continue;
        }
        let address = cells.get(2).unwrap_or(&"").trim();
        if address.is_empty() || address == "..." || !seen_addresses.insert(address.to_string()) {
            continue;
        }
        let Some((line_number, source)) = line.clone() else {
            continue;
        };
        let field = |name: &str| {
            header
                .iter()
                .position(|h| h == name)
                .and_then(|i| cells.get(i))
                .copied()
                .unwrap_or("")
        };
        let space = match field("Address Space") {
            "Global" => "global",
            "Shared" => "shared",
            "Local" => "local",
            "Generic" => "generic",
            _ => continue,
        };
        let op = match field("Access Operation") {
            "Load" => "load",
            "Store" => "store",
            "Atomic" => "atomic",
            other => other,
        }
        .to_lowercase();
        let key = (launch, line_number, file.clone(), space.to_string(), op.clone());
        let slot = *index.entry(key).or_insert_with(|| {
            rows.push(MeasuredRow {
                launch,
                kernel: kernel.clone(),
                file: file.clone(),
                line: line_number,
                space: space.to_string(),
                op: op.clone(),
                access_bytes: 0,
                instructions: 0,
                requests: 0,
                sectors: 0,
                ideal_sectors: 0,
                wavefronts: 0,
                ideal_wavefronts: 0,
                source: source.clone(),
            });
            rows.len() - 1
        });
        let row = &mut rows[slot];
        row.instructions += 1;
        row.access_bytes = row.access_bytes.max(number(field("Access Size")) as u64 / 8);
        row.requests += number(field("Instructions Executed")) as u64;
        row.sectors += number(field("L2 Theoretical Sectors Global")) as u64;
        row.ideal_sectors += number(field("L2 Theoretical Sectors Global Ideal")) as u64;
        row.wavefronts += number(field("L1 Wavefronts Shared")) as u64;
        row.ideal_wavefronts += number(field("L1 Wavefronts Shared Ideal")) as u64;
    }
    if header.is_empty() {
        return Err("no `Line No` header: not an `ncu --page source --csv` export".to_string());
    }
    Ok(rows)
}

/// `ns::read_offset(const float *, ...)` to `read_offset`.
fn demangled_name(text: &str) -> String {
    let before_args = text.split('(').next().unwrap_or(text);
    before_args
        .rsplit("::")
        .next()
        .unwrap_or(before_args)
        .trim()
        .to_string()
}

/// Writes rows as CSV.
pub fn write_csv(rows: &[MeasuredRow]) -> Result<String, String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer.serialize(row).map_err(|e| e.to_string())?;
    }
    let bytes = writer.into_inner().map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| e.to_string())
}

/// Reads rows written by [`write_csv`].
pub fn read_csv(text: &str) -> Result<Vec<MeasuredRow>, String> {
    csv::Reader::from_reader(text.as_bytes())
        .deserialize()
        .enumerate()
        .map(|(i, r)| r.map_err(|e| format!("measurement row {}: {e}", i + 2)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_kernel_names() {
        assert_eq!(
            demangled_name("kl_file0::read_offset(const float *, unsigned long long)"),
            "read_offset"
        );
        assert_eq!(demangled_name("broadcastBlock"), "broadcastBlock");
    }
}
