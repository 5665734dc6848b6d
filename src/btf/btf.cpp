#include "src/btf/btf.h"

#include <algorithm>
#include <cstring>

#include "util/files.h"

namespace kpp::btf {

namespace {

enum Kind : uint32_t {
  kInt = 1, kPtr, kArray, kStruct, kUnion, kEnum, kFwd, kTypedef, kVolatile, kConst, kRestrict,
  kFunc, kFuncProto, kVar, kDatasec, kFloat, kDeclTag, kTypeTag, kEnum64
};

uint32_t kind_of(uint32_t info) { return (info >> 24) & 0x1f; }
uint32_t vlen_of(uint32_t info) { return info & 0xffff; }

// Bytes that follow the 12-byte common record, by kind.
Result<size_t> extra_size(uint32_t info) {
  uint32_t vlen = vlen_of(info);
  switch (kind_of(info)) {
    case kInt: case kVar: case kDeclTag: return size_t{4};
    case kArray: return size_t{12};
    case kStruct: case kUnion: case kDatasec: case kEnum64: return size_t{12} * vlen;
    case kEnum: case kFuncProto: return size_t{8} * vlen;
    case kPtr: case kFwd: case kTypedef: case kVolatile: case kConst: case kRestrict: case kFunc: case kFloat:
    case kTypeTag: return size_t{0};
    default: return Error("BTF type of unknown kind " + std::to_string(kind_of(info)));
  }
}

uint32_t u32(const std::string &b, size_t at) {
  uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}

}  // namespace

Result<Btf> Btf::parse(std::string bytes) {
  if (bytes.size() < 24) return Error("not BTF: shorter than its header");
  uint16_t magic;
  std::memcpy(&magic, bytes.data(), 2);
  if (magic == 0x9feb) return Error("BTF of the other byte order is not supported");
  if (magic != 0xeb9f) return Error("not BTF: bad magic");
  uint32_t hdr_len = u32(bytes, 4), type_off = u32(bytes, 8), type_len = u32(bytes, 12), str_off = u32(bytes, 16),
           str_len = u32(bytes, 20);
  if (uint64_t{hdr_len} + type_off + type_len > bytes.size() || uint64_t{hdr_len} + str_off + str_len > bytes.size())
    return Error("BTF is truncated: its sections run past the end of the data");
  Btf btf;
  btf.types_begin_ = hdr_len + type_off;
  btf.strings_begin_ = hdr_len + str_off;
  btf.strings_size_ = str_len;
  btf.bytes_ = std::move(bytes);
  size_t at = btf.types_begin_, end = btf.types_begin_ + type_len;
  while (at < end) {
    if (at + 12 > end) return Error("BTF is truncated inside a type record");
    uint32_t info = u32(btf.bytes_, at + 4);
    auto extra = extra_size(info);
    if (!extra) return std::move(extra).error();
    btf.offsets_.push_back(static_cast<uint32_t>(at));
    if (kind_of(info) == kFunc) btf.functions_.push_back(static_cast<uint32_t>(btf.offsets_.size()));
    at += 12 + *extra;
  }
  if (at != end) return Error("BTF is truncated inside a type record");
  std::sort(btf.functions_.begin(), btf.functions_.end(), [&btf](uint32_t a, uint32_t b) {
    return std::strcmp(btf.string_at(btf.record(a).name_off), btf.string_at(btf.record(b).name_off)) < 0;
  });
  return btf;
}

Result<Btf> Btf::load(const std::string &path) {
  Result<std::string> bytes = read_whole_file(path);
  if (!bytes) return Error("cannot read " + path);
  auto btf = parse(*bytes);
  if (!btf) return Error(path + ": " + btf.error().message);
  return btf;
}

Btf::Record Btf::record(uint32_t id) const {
  if (id == 0 || id > offsets_.size()) return {0, 0, 0};
  size_t at = offsets_[id - 1];
  return {u32(bytes_, at), u32(bytes_, at + 4), u32(bytes_, at + 8)};
}

const char *Btf::string_at(uint32_t offset) const {
  if (offset >= strings_size_) return "";
  return bytes_.data() + strings_begin_ + offset;  // the section ends with a NUL
}

std::optional<FunctionProto> Btf::function(const std::string &name) const {
  auto it = std::lower_bound(functions_.begin(), functions_.end(), name, [this](uint32_t id, const std::string &n) {
    return std::strcmp(string_at(record(id).name_off), n.c_str()) < 0;
  });
  if (it == functions_.end() || name != string_at(record(*it).name_off)) return std::nullopt;
  uint32_t proto_id = record(*it).size_or_type;
  Record proto = record(proto_id);
  if (kind_of(proto.info) != kFuncProto) return std::nullopt;
  FunctionProto out;
  out.name = name;
  out.return_type = proto.size_or_type;
  size_t at = offsets_[proto_id - 1] + 12;
  for (uint32_t i = 0; i < vlen_of(proto.info); ++i, at += 8)
    out.params.push_back({string_at(u32(bytes_, at)), u32(bytes_, at + 4)});
  return out;
}

uint32_t Btf::skip_modifiers(uint32_t id) const {
  for (int guard = 0; guard < 64 && id != 0; ++guard) {
    uint32_t k = kind_of(record(id).info);
    if (k != kTypedef && k != kVolatile && k != kConst && k != kRestrict && k != kTypeTag) break;
    id = record(id).size_or_type;
  }
  return id;
}

std::string Btf::spelling(uint32_t id, int depth) const {
  if (id == 0) return "void";
  if (depth > 16) return "?";
  Record r = record(id);
  std::string name = string_at(r.name_off);
  switch (kind_of(r.info)) {
    case kPtr: return spelling(r.size_or_type, depth + 1) + " *";
    case kConst: return "const " + spelling(r.size_or_type, depth + 1);
    case kVolatile: return "volatile " + spelling(r.size_or_type, depth + 1);
    case kRestrict: case kTypeTag: return spelling(r.size_or_type, depth + 1);
    case kStruct: return "struct " + name;
    case kUnion: return "union " + name;
    case kEnum: case kEnum64: return "enum " + name;
    case kFwd: return ((r.info >> 31) ? "union " : "struct ") + name;
    case kFuncProto: return "function";
    case kArray: return spelling(u32(bytes_, offsets_[id - 1] + 12), depth + 1) + "[]";
    default: return name;
  }
}

Scalar Btf::scalar(uint32_t type) const {
  Scalar s;
  s.name = spelling(type);
  uint32_t id = skip_modifiers(type);
  if (id == 0) {
    s.kind = Scalar::Kind::Void;
    return s;
  }
  Record r = record(id);
  switch (kind_of(r.info)) {
    case kInt: {
      uint32_t encoding = (u32(bytes_, offsets_[id - 1] + 12) >> 24) & 0xf;
      s.size = r.size_or_type;
      s.is_signed = encoding & 1;
      s.kind = (encoding & 4) ? Scalar::Kind::Bool : (encoding & 2) ? Scalar::Kind::Char : Scalar::Kind::Int;
      break;
    }
    case kPtr: s.kind = Scalar::Kind::Pointer; s.size = 8; break;
    case kEnum: case kEnum64:
      s.kind = Scalar::Kind::Enum;
      s.size = r.size_or_type;
      s.is_signed = r.info >> 31;  // kind_flag: signed enumerators
      break;
    case kFloat: s.kind = Scalar::Kind::Float; s.size = r.size_or_type; break;
    case kStruct: case kUnion: s.kind = Scalar::Kind::Aggregate; s.size = r.size_or_type; break;
    default: break;
  }
  return s;
}

}  // namespace kpp::btf
